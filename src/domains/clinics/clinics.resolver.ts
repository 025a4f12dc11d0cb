import { Arg, Args, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { OffsetPageArgs, PageArgs } from '../../graphql/connection';
import { forbidden, unauthenticated } from '../../kernel/errors';
import { isAuthenticated } from '../../kernel/principal';
import type { Scope } from '../../kernel/scope';
import { ClinicsService } from './clinics.service';
import {
  Clinic,
  ClinicConnection,
  ClinicFilter,
  CreateClinicInput,
  CreateClinicPayload,
  PatientTag,
  UpdateClinicInput,
  UpdateClinicPayload,
} from './clinics.types';

@Resolver(() => Clinic)
export class ClinicsResolver {
  constructor(private readonly service: ClinicsService) {}

  @Query(() => Clinic, {
    nullable: true,
    description:
      'A clinic by id. Its clinicians (any role) and server tokens may read it; otherwise null with FORBIDDEN, or NOT_FOUND when there is no such clinic.',
  })
  async clinic(
    @Arg('id', () => ID, { description: 'The clinic id: 24 lowercase hexadecimal characters.' }) id: string,
    @Ctx() scope: Scope,
  ): Promise<Clinic> {
    return Clinic.from(await this.service.get(scope, id));
  }

  @Query(() => Clinic, {
    nullable: true,
    description:
      'The clinic with a share code, so a patient can find the clinic to share its data with. Any signed-in caller may look one up; null with NOT_FOUND when no clinic has the code.',
  })
  async clinicByShareCode(
    @Arg('shareCode', { description: 'The share code, in any letter case (`ABCD-EFGH-JKLM`).' }) shareCode: string,
    @Ctx() scope: Scope,
  ): Promise<Clinic> {
    return Clinic.from(await this.service.byShareCode(scope, shareCode));
  }

  @Query(() => ClinicConnection, {
    description:
      'Clinics, oldest first. A server token lists them all; a user lists the clinics it is a clinician of, or with `filter.shareCode` the clinic having that code.',
  })
  async clinics(
    @Arg('filter', () => ClinicFilter, {
      nullable: true,
      description: 'Which clinics; all the caller sees when omitted.',
    })
    filter: ClinicFilter | null,
    @Args() { first, after, offset }: OffsetPageArgs,
    @Ctx() scope: Scope,
  ): Promise<ClinicConnection> {
    return ClinicConnection.of(await this.service.list(scope, filter ?? {}, first, after, offset), Clinic.from);
  }

  @Query(() => ClinicConnection, {
    description: 'The clinics the caller is a clinician of (any role), oldest first. Needs a user token.',
  })
  async myClinics(@Args() { first, after }: PageArgs, @Ctx() scope: Scope): Promise<ClinicConnection> {
    const { principal } = scope;
    if (principal.userId === null) {
      if (!isAuthenticated(principal)) throw unauthenticated();
      throw forbidden('myClinics lists the clinics of the calling user; a server token asks clinicsOfClinician');
    }
    return ClinicConnection.of(await this.service.ofUser(scope, principal.userId, first, after), Clinic.from);
  }

  @Query(() => ClinicConnection, {
    description: 'The clinics a user is a clinician of, oldest first: for that user and server tokens.',
  })
  async clinicsOfClinician(
    @Arg('userId', () => ID, { description: 'The user.' }) userId: string,
    @Args() { first, after, offset }: OffsetPageArgs,
    @Ctx() scope: Scope,
  ): Promise<ClinicConnection> {
    return ClinicConnection.of(await this.service.ofUser(scope, userId, first, after, offset), Clinic.from);
  }

  @FieldResolver(() => [PatientTag], { description: 'The labels the clinic puts on its patients (at most 50).' })
  async patientTags(@Root() clinic: Clinic, @Ctx() scope: Scope): Promise<PatientTag[]> {
    return (await this.service.patientTags(scope, clinic.id)).map(PatientTag.from);
  }

  @Mutation(() => CreateClinicPayload, {
    description: 'Creates a clinic; the calling user becomes its CLINIC_ADMIN. Needs a user token.',
  })
  async createClinic(
    @Arg('input', () => CreateClinicInput, { description: 'The clinic’s fields.' }) input: CreateClinicInput,
    @Ctx() scope: Scope,
  ): Promise<CreateClinicPayload> {
    const clinic = Clinic.from(await this.service.create(scope, input));
    return Object.assign(new CreateClinicPayload(), { clinic });
  }

  @Mutation(() => UpdateClinicPayload, {
    description: 'Replaces a clinic’s fields as a whole: its CLINIC_ADMINs and server tokens may.',
  })
  async updateClinic(
    @Arg('input', () => UpdateClinicInput, { description: 'The clinic and all its fields.' }) input: UpdateClinicInput,
    @Ctx() scope: Scope,
  ): Promise<UpdateClinicPayload> {
    const { id, ...fields } = input;
    const clinic = Clinic.from(await this.service.update(scope, id, fields));
    return Object.assign(new UpdateClinicPayload(), { clinic });
  }
}
