import { Arg, Args, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { OffsetPageArgs } from '../../graphql/connection';
import type { Scope } from '../../kernel/scope';
import { User } from '../users/user.types';
import { UsersService } from '../users/users.service';
import { ClinicsService } from './clinics.service';
import { Clinic, PatientTag } from './clinics.types';
import type { PatientOrder } from './patient-list';
import { PatientInvitesService } from './patient-invites.service';
import { PatientTagsService } from './patient-tags.service';
import { PatientsService } from './patients.service';
import { ClinicPatientFilter } from './patient-filter.types';
import {
  AcceptPatientInviteInput,
  AddClinicPatientInput,
  ClinicPatientInput,
  CreateClinicPatientInput,
  CreatePatientTagInput,
  DeletePatientTagInput,
  InviteClinicInput,
  RenamePatientTagInput,
  RevokeClinicPatientPermissionInput,
  RevokePatientInviteInput,
  UpdateClinicPatientInput,
  UpdateClinicPatientPermissionsInput,
} from './patient-input.types';
import { ClinicPatientOrder, ClinicPatientOrderField, OrderDirection } from './patient-order.types';
import {
  ClinicPatient,
  ClinicPatientConnection,
  ClinicPatientPayload,
  DeletePatientTagPayload,
  PatientInvite,
  PatientInvitePayload,
  PatientTagPayload,
  RemoveClinicPatientPayload,
  UpdateClinicPatientPermissionsPayload,
} from './patients.types';

/** A GraphQL order as the patients service takes it: by account id when omitted. */
export const toOrder = (order: ClinicPatientOrder | null) => ({
  field: (order?.field ?? ClinicPatientOrderField.USER_ID) as PatientOrder['field'],
  descending: order?.direction === OrderDirection.DESC,
  summary: order?.summary
    ? { kind: order.summary, period: order.period ?? null, previous: order.usePreviousPeriod ?? null }
    : null,
});

/** A clinic's patients and their invitations, as fields of the clinic. */
@Resolver(() => Clinic)
export class ClinicPatientsResolver {
  constructor(
    private readonly service: PatientsService,
    private readonly invites: PatientInvitesService,
  ) {}

  @FieldResolver(() => ClinicPatientConnection, {
    description:
      'The clinic’s patients, by account id unless `orderBy` says otherwise. Its CLINIC_MEMBERs, CLINIC_ADMINs and server tokens may list them; others get FORBIDDEN.',
  })
  async patients(
    @Root() clinic: Clinic,
    @Arg('filter', () => ClinicPatientFilter, {
      nullable: true,
      description: 'Which patients (record fields and glucose summary statistics); all when omitted.',
    })
    filter: ClinicPatientFilter | null,
    @Arg('orderBy', () => ClinicPatientOrder, {
      nullable: true,
      description: 'The order (a record field, or a summary statistic or date); by account id when omitted.',
    })
    orderBy: ClinicPatientOrder | null,
    @Args() { first, after, offset }: OffsetPageArgs,
    @Ctx() scope: Scope,
  ): Promise<ClinicPatientConnection> {
    const list = await this.service.list(
      scope,
      clinic.id,
      ClinicPatientFilter.toDomain(filter),
      toOrder(orderBy),
      first,
      after,
      offset,
    );
    return ClinicPatientConnection.of(list, ClinicPatient.from);
  }

  @FieldResolver(() => ClinicPatient, {
    nullable: true,
    description:
      'One patient by account id: for the clinic’s members, admins and server tokens. Null with NOT_FOUND when the account is not its patient.',
  })
  async patient(
    @Root() clinic: Clinic,
    @Arg('userId', () => ID, { description: 'The patient’s account id.' }) userId: string,
    @Ctx() scope: Scope,
  ): Promise<ClinicPatient> {
    return ClinicPatient.from(await this.service.get(scope, clinic.id, userId));
  }

  @FieldResolver(() => Int, {
    description: 'How many patients the clinic has: for its members, admins and server tokens.',
  })
  patientCount(@Root() clinic: Clinic, @Ctx() scope: Scope): Promise<number> {
    return this.service.count(scope, clinic.id);
  }

  @FieldResolver(() => [PatientInvite], {
    description:
      'Users’ pending invitations to the clinic, oldest first (at most 1000): for its members, admins and server tokens.',
  })
  async patientInvites(@Root() clinic: Clinic, @Ctx() scope: Scope): Promise<PatientInvite[]> {
    return (await this.invites.ofClinic(scope, clinic.id)).map(PatientInvite.from);
  }
}

/** The nested fields of a clinic patient: its account, its clinic, its tags. */
@Resolver(() => ClinicPatient)
export class ClinicPatientFieldsResolver {
  constructor(
    private readonly users: UsersService,
    private readonly clinics: ClinicsService,
  ) {}

  @FieldResolver(() => User, {
    nullable: true,
    description:
      'The patient’s account, for whoever may read it: the clinic’s clinicians when the clinic is its custodian (it created the account), the patient itself, its custodians, server tokens. Null otherwise.',
  })
  async user(@Root() patient: ClinicPatient, @Ctx() scope: Scope): Promise<User | null> {
    const [record] = await this.users.many(scope, [patient.userId]);
    return record ? User.from(record, scope.principal) : null;
  }

  @FieldResolver(() => Clinic, { description: 'The clinic the patient belongs to.' })
  async clinic(@Root() patient: ClinicPatient, @Ctx() scope: Scope): Promise<Clinic> {
    return Clinic.from(await this.clinics.reached(scope, patient.clinicId));
  }

  @FieldResolver(() => [PatientTag], { description: 'The clinic’s tags on the patient, in the patient’s order.' })
  async tags(@Root() patient: ClinicPatient, @Ctx() scope: Scope): Promise<PatientTag[]> {
    const tags = new Map((await this.clinics.patientTags(scope, patient.clinicId)).map((tag) => [tag.id, tag]));
    return patient.tagIds.flatMap((id) => {
      const tag = tags.get(id);
      return tag ? [PatientTag.from(tag)] : [];
    });
  }
}

/** Clinic patients' own operations: creation, changes, tags, reviews, invitations and what they grant. */
@Resolver()
export class PatientsResolver {
  constructor(
    private readonly patients: PatientsService,
    private readonly tags: PatientTagsService,
    private readonly invites: PatientInvitesService,
  ) {}

  @Query(() => [ClinicPatient], {
    description:
      'The clinics a user is a patient of, as the clinics’ records of it (oldest first): for the user itself, its custodians and server tokens.',
  })
  async patientClinics(
    @Arg('userId', () => ID, { description: 'The user.' }) userId: string,
    @Ctx() scope: Scope,
  ): Promise<ClinicPatient[]> {
    return (await this.patients.clinicsOf(scope, userId)).map(ClinicPatient.from);
  }

  @Query(() => [PatientInvite], {
    description: 'A user’s pending invitations to clinics, oldest first: for the user itself and server tokens.',
  })
  async myPatientInvites(
    @Arg('userId', () => ID, { description: 'The user.' }) userId: string,
    @Ctx() scope: Scope,
  ): Promise<PatientInvite[]> {
    return (await this.invites.ofUser(scope, userId)).map(PatientInvite.from);
  }

  @Mutation(() => ClinicPatientPayload, {
    description:
      'Creates a patient account with no login; the clinic becomes its custodian (CUSTODIAN, VIEW, UPLOAD, NOTE). For the clinic’s members, admins and server tokens.',
  })
  async createClinicPatient(
    @Arg('input', () => CreateClinicPatientInput, { description: 'The clinic and the patient’s record.' })
    input: CreateClinicPatientInput,
    @Ctx() scope: Scope,
  ): Promise<ClinicPatientPayload> {
    const { clinicId, ...fields } = input;
    return ClinicPatientPayload.of(ClinicPatient.from(await this.patients.create(scope, clinicId, fields)));
  }

  @Mutation(() => ClinicPatientPayload, {
    description:
      'Makes an existing account a patient with the permissions given: server tokens only (users invite the clinic with inviteClinic). CONFLICT when it already is one.',
  })
  async addClinicPatient(
    @Arg('input', () => AddClinicPatientInput, { description: 'The clinic, the account and its record.' })
    input: AddClinicPatientInput,
    @Ctx() scope: Scope,
  ): Promise<ClinicPatientPayload> {
    const { clinicId, userId, ...fields } = input;
    const record = { ...fields, fullName: fields.fullName ?? undefined, birthDate: fields.birthDate ?? undefined };
    return ClinicPatientPayload.of(ClinicPatient.from(await this.patients.add(scope, clinicId, userId, record)));
  }

  @Mutation(() => ClinicPatientPayload, {
    description: 'Changes the clinic’s record of a patient: for the clinic’s members, admins and server tokens.',
  })
  async updateClinicPatient(
    @Arg('input', () => UpdateClinicPatientInput, { description: 'The patient and the changes.' })
    input: UpdateClinicPatientInput,
    @Ctx() scope: Scope,
  ): Promise<ClinicPatientPayload> {
    const { clinicId, userId, ...changes } = input;
    return ClinicPatientPayload.of(ClinicPatient.from(await this.patients.update(scope, clinicId, userId, changes)));
  }

  @Mutation(() => RemoveClinicPatientPayload, {
    description:
      'Removes a patient from the clinic, and with it the clinic’s access to its data: the clinic’s admins, the patient itself and server tokens.',
  })
  async removeClinicPatient(
    @Arg('input', () => ClinicPatientInput, { description: 'The patient.' }) input: ClinicPatientInput,
    @Ctx() scope: Scope,
  ): Promise<RemoveClinicPatientPayload> {
    await this.patients.remove(scope, input.clinicId, input.userId);
    return Object.assign(new RemoveClinicPatientPayload(), input);
  }

  @Mutation(() => ClinicPatientPayload, {
    description:
      'The calling clinician marks the patient reviewed now (the newest of at most 10 reviews kept): the clinic’s members and admins.',
  })
  async reviewClinicPatient(
    @Arg('input', () => ClinicPatientInput, { description: 'The patient.' }) input: ClinicPatientInput,
    @Ctx() scope: Scope,
  ): Promise<ClinicPatientPayload> {
    return ClinicPatientPayload.of(ClinicPatient.from(await this.patients.review(scope, input.clinicId, input.userId)));
  }

  @Mutation(() => ClinicPatientPayload, {
    description:
      'Takes back the newest review: NOT_FOUND when there is none, CONFLICT when another clinician made it (server tokens may revert any).',
  })
  async revertClinicPatientReview(
    @Arg('input', () => ClinicPatientInput, { description: 'The patient.' }) input: ClinicPatientInput,
    @Ctx() scope: Scope,
  ): Promise<ClinicPatientPayload> {
    const patient = await this.patients.revertReview(scope, input.clinicId, input.userId);
    return ClinicPatientPayload.of(ClinicPatient.from(patient));
  }

  @Mutation(() => UpdateClinicPatientPermissionsPayload, {
    description:
      'The patient replaces what it lets the clinic do; granting nothing leaves the clinic. Only the patient itself and server tokens.',
  })
  async updateClinicPatientPermissions(
    @Arg('input', () => UpdateClinicPatientPermissionsInput, { description: 'The patient and its permissions.' })
    input: UpdateClinicPatientPermissionsInput,
    @Ctx() scope: Scope,
  ): Promise<UpdateClinicPatientPermissionsPayload> {
    const patient = await this.patients.setPermissions(scope, input.clinicId, input.userId, input.permissions);
    return Object.assign(new UpdateClinicPatientPermissionsPayload(), {
      patient: patient && ClinicPatient.from(patient),
    });
  }

  @Mutation(() => UpdateClinicPatientPermissionsPayload, {
    description:
      'The patient takes one permission back from the clinic; the last one leaves the clinic. Only the patient itself and server tokens.',
  })
  async revokeClinicPatientPermission(
    @Arg('input', () => RevokeClinicPatientPermissionInput, { description: 'The patient and the permission.' })
    input: RevokeClinicPatientPermissionInput,
    @Ctx() scope: Scope,
  ): Promise<UpdateClinicPatientPermissionsPayload> {
    const patient = await this.patients.revokePermission(scope, input.clinicId, input.userId, input.permission);
    return Object.assign(new UpdateClinicPatientPermissionsPayload(), {
      patient: patient && ClinicPatient.from(patient),
    });
  }

  @Mutation(() => PatientTagPayload, {
    description: 'Creates a patient tag (at most 50 per clinic, CONFLICT beyond): the clinic’s members and admins.',
  })
  async createPatientTag(
    @Arg('input', () => CreatePatientTagInput, { description: 'The clinic and the name.' })
    input: CreatePatientTagInput,
    @Ctx() scope: Scope,
  ): Promise<PatientTagPayload> {
    const tag = await this.tags.create(scope, input.clinicId, input.name);
    return Object.assign(new PatientTagPayload(), { tag: PatientTag.from(tag) });
  }

  @Mutation(() => PatientTagPayload, { description: 'Renames a patient tag: the clinic’s members and admins.' })
  async renamePatientTag(
    @Arg('input', () => RenamePatientTagInput, { description: 'The tag and its new name.' })
    input: RenamePatientTagInput,
    @Ctx() scope: Scope,
  ): Promise<PatientTagPayload> {
    const tag = await this.tags.rename(scope, input.clinicId, input.tagId, input.name);
    return Object.assign(new PatientTagPayload(), { tag: PatientTag.from(tag) });
  }

  @Mutation(() => DeletePatientTagPayload, {
    description:
      'Deletes a patient tag, takes it off every patient and records it as the clinic’s lastDeletedPatientTag: the clinic’s admins.',
  })
  async deletePatientTag(
    @Arg('input', () => DeletePatientTagInput, { description: 'The tag.' }) input: DeletePatientTagInput,
    @Ctx() scope: Scope,
  ): Promise<DeletePatientTagPayload> {
    const tag = await this.tags.remove(scope, input.clinicId, input.tagId);
    return Object.assign(new DeletePatientTagPayload(), { tagId: tag.id });
  }

  @Mutation(() => PatientInvitePayload, {
    description:
      'A user invites the clinic with this share code to follow its data with the permissions chosen (the user itself, or a server token). CONFLICT when already pending or a patient.',
  })
  async inviteClinic(
    @Arg('input', () => InviteClinicInput, { description: 'The user, the share code and the permissions.' })
    input: InviteClinicInput,
    @Ctx() scope: Scope,
  ): Promise<PatientInvitePayload> {
    const invite = await this.invites.invite(scope, input.userId, input.shareCode, input.permissions);
    return Object.assign(new PatientInvitePayload(), { invite: PatientInvite.from(invite) });
  }

  @Mutation(() => ClinicPatientPayload, {
    description:
      'The clinic accepts an invitation: the user becomes its patient with the permissions it chose. The clinic’s members, admins and server tokens.',
  })
  async acceptPatientInvite(
    @Arg('input', () => AcceptPatientInviteInput, { description: 'The invitation and the patient’s record.' })
    input: AcceptPatientInviteInput,
    @Ctx() scope: Scope,
  ): Promise<ClinicPatientPayload> {
    const { clinicId, inviteId, ...fields } = input;
    const record = { ...fields, fullName: fields.fullName ?? undefined, birthDate: fields.birthDate ?? undefined };
    return ClinicPatientPayload.of(ClinicPatient.from(await this.invites.accept(scope, clinicId, inviteId, record)));
  }

  @Mutation(() => PatientInvitePayload, {
    description:
      'Withdraws a pending invitation: the inviting user, or the clinic declining it (its members and admins), or a server token.',
  })
  async revokePatientInvite(
    @Arg('input', () => RevokePatientInviteInput, { description: 'The invitation.' }) input: RevokePatientInviteInput,
    @Ctx() scope: Scope,
  ): Promise<PatientInvitePayload> {
    const invite = await this.invites.revoke(scope, input.clinicId, input.inviteId);
    return Object.assign(new PatientInvitePayload(), { invite: PatientInvite.from(invite) });
  }
}
