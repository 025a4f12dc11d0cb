import { Arg, Args, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { OffsetPageArgs, PageArgs } from '../../graphql/connection';
import type { Scope } from '../../kernel/scope';
import { CliniciansService } from './clinicians.service';
import {
  AcceptClinicianInvitePayload,
  AnswerClinicianInviteInput,
  Clinician,
  ClinicianConnection,
  ClinicianFilter,
  ClinicianInviteInput,
  CreateClinicianInput,
  CreateClinicianPayload,
  DeclineClinicianInvitePayload,
  InviteClinicianInput,
  InviteClinicianPayload,
  RemoveClinicianInput,
  RemoveClinicianPayload,
  ResendClinicianInvitePayload,
  RevokeClinicianInvitePayload,
  UpdateClinicianInput,
  UpdateClinicianPayload,
} from './clinicians.types';
import { ClinicsService } from './clinics.service';
import { Clinic } from './clinics.types';

/** A clinic's clinicians and invitations, as fields of the clinic. */
@Resolver(() => Clinic)
export class ClinicCliniciansResolver {
  constructor(private readonly service: CliniciansService) {}

  @FieldResolver(() => ClinicianConnection, {
    description:
      'The clinic’s clinicians, oldest first: members, and invitations not yet accepted (with `inviteId`). Its CLINIC_MEMBERs, CLINIC_ADMINs and server tokens may list them; others get FORBIDDEN.',
  })
  async clinicians(
    @Root() clinic: Clinic,
    @Arg('filter', () => ClinicianFilter, { nullable: true, description: 'Which clinicians; all when omitted.' })
    filter: ClinicianFilter | null,
    @Args() { first, after, offset }: OffsetPageArgs,
    @Ctx() scope: Scope,
  ): Promise<ClinicianConnection> {
    const page = await this.service.list(scope, clinic.id, filter ?? {}, first, after, offset);
    return ClinicianConnection.of(page, Clinician.from);
  }

  @FieldResolver(() => Clinician, {
    nullable: true,
    description:
      'One member by account id: for the clinic’s members and admins, the clinician itself and server tokens. Null with NOT_FOUND when that account is not a member.',
  })
  async clinician(
    @Root() clinic: Clinic,
    @Arg('userId', () => ID, { description: 'The member’s account id.' }) userId: string,
    @Ctx() scope: Scope,
  ): Promise<Clinician> {
    return Clinician.from(await this.service.get(scope, clinic.id, userId));
  }

  @FieldResolver(() => Clinician, {
    nullable: true,
    description:
      'One invitation not yet accepted, as the clinic lists it: for its members, admins and server tokens. Null with NOT_FOUND when there is none.',
  })
  async clinicianInvite(
    @Root() clinic: Clinic,
    @Arg('inviteId', () => ID, { description: 'The invitation id.' }) inviteId: string,
    @Ctx() scope: Scope,
  ): Promise<Clinician> {
    return Clinician.from(await this.service.getInvite(scope, clinic.id, inviteId));
  }
}

@Resolver(() => Clinician)
export class CliniciansResolver {
  constructor(
    private readonly clinicians: CliniciansService,
    private readonly clinics: ClinicsService,
  ) {}

  @FieldResolver(() => Clinic, { description: 'The clinic the clinician belongs to, or is invited to.' })
  async clinic(@Root() clinician: Clinician, @Ctx() scope: Scope): Promise<Clinic> {
    return Clinic.from(await this.clinics.reached(scope, clinician.clinicId));
  }

  @Query(() => ClinicianConnection, {
    description:
      'The invitations to join a clinic addressed to any address of a user (its username or emails), oldest first: for that user and server tokens.',
  })
  async clinicianInvites(
    @Arg('userId', () => ID, { description: 'The invited user.' }) userId: string,
    @Args() { first, after }: PageArgs,
    @Ctx() scope: Scope,
  ): Promise<ClinicianConnection> {
    return ClinicianConnection.of(await this.clinicians.invitesFor(scope, userId, first, after), Clinician.from);
  }

  @Mutation(() => CreateClinicianPayload, {
    description:
      'Internal (server tokens only): makes an account a member with roles, or without `userId` invites the email. CONFLICT when it already is one.',
  })
  async createClinician(
    @Arg('input', () => CreateClinicianInput, { description: 'The clinic and the clinician.' })
    input: CreateClinicianInput,
    @Ctx() scope: Scope,
  ) {
    const { clinicId, ...clinician } = input;
    return CreateClinicianPayload.of(await this.clinicians.create(scope, clinicId, clinician));
  }

  @Mutation(() => InviteClinicianPayload, {
    description:
      'Invites an email to join the clinic with roles, and mails it the key that accepts: CLINIC_ADMINs and server tokens. CONFLICT when the email is already invited or a member; RATE_LIMITED when the address or the caller has had its share of mail.',
  })
  async inviteClinician(
    @Arg('input', () => InviteClinicianInput, { description: 'The clinic, the email and the roles.' })
    input: InviteClinicianInput,
    @Ctx() scope: Scope,
  ) {
    const { clinicId, ...invite } = input;
    return InviteClinicianPayload.of(await this.clinicians.invite(scope, clinicId, invite));
  }

  @Mutation(() => ResendClinicianInvitePayload, {
    description:
      'Sends an invitation again: a new key is mailed (the earlier ones stop working) and its `updatedTime` renewed. CLINIC_ADMINs and server tokens; RATE_LIMITED as inviteClinician.',
  })
  async resendClinicianInvite(
    @Arg('input', () => ClinicianInviteInput, { description: 'The clinic and the invitation.' })
    input: ClinicianInviteInput,
    @Ctx() scope: Scope,
  ) {
    return ResendClinicianInvitePayload.of(await this.clinicians.resendInvite(scope, input.clinicId, input.inviteId));
  }

  @Mutation(() => RevokeClinicianInvitePayload, {
    description: 'Withdraws an invitation not yet answered: CLINIC_ADMINs and server tokens.',
  })
  async revokeClinicianInvite(
    @Arg('input', () => ClinicianInviteInput, { description: 'The clinic and the invitation.' })
    input: ClinicianInviteInput,
    @Ctx() scope: Scope,
  ) {
    await this.clinicians.revokeInvite(scope, input.clinicId, input.inviteId);
    return Object.assign(new RevokeClinicianInvitePayload(), { inviteId: input.inviteId });
  }

  @Mutation(() => AcceptClinicianInvitePayload, {
    description:
      'The invited user joins the clinic with the invited roles; the invitation is used up. It proves the invitation is its own with the key from the mail, or by having verified the invited address.',
  })
  async acceptClinicianInvite(
    @Arg('input', () => AnswerClinicianInviteInput, { description: 'The invited user and the invitation.' })
    input: AnswerClinicianInviteInput,
    @Ctx() scope: Scope,
  ) {
    return AcceptClinicianInvitePayload.of(
      await this.clinicians.acceptInvite(scope, input.userId, input.inviteId, input.key),
    );
  }

  @Mutation(() => DeclineClinicianInvitePayload, {
    description: 'The invited user declines the invitation; it is gone.',
  })
  async declineClinicianInvite(
    @Arg('input', () => AnswerClinicianInviteInput, { description: 'The invited user and the invitation.' })
    input: AnswerClinicianInviteInput,
    @Ctx() scope: Scope,
  ) {
    await this.clinicians.declineInvite(scope, input.userId, input.inviteId, input.key);
    return Object.assign(new DeclineClinicianInvitePayload(), { inviteId: input.inviteId });
  }

  @Mutation(() => UpdateClinicianPayload, {
    description:
      'Sets a member’s roles (and name): CLINIC_ADMINs and server tokens. CONFLICT when it would leave the clinic without a CLINIC_ADMIN.',
  })
  async updateClinician(
    @Arg('input', () => UpdateClinicianInput, { description: 'The member and its new roles.' })
    input: UpdateClinicianInput,
    @Ctx() scope: Scope,
  ) {
    const { clinicId, userId, ...changes } = input;
    return UpdateClinicianPayload.of(await this.clinicians.update(scope, clinicId, userId, changes));
  }

  @Mutation(() => RemoveClinicianPayload, {
    description:
      'Removes a member: CLINIC_ADMINs and server tokens, or the member itself to leave. CONFLICT for the last CLINIC_ADMIN.',
  })
  async removeClinician(
    @Arg('input', () => RemoveClinicianInput, { description: 'The clinic and the member.' })
    input: RemoveClinicianInput,
    @Ctx() scope: Scope,
  ): Promise<RemoveClinicianPayload> {
    await this.clinicians.remove(scope, input.clinicId, input.userId);
    return Object.assign(new RemoveClinicianPayload(), { clinicId: input.clinicId, userId: input.userId });
  }
}
