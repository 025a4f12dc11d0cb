import { Field, ID, InputType, ObjectType, registerEnumType } from 'type-graphql';
import { connectionOf } from '../../graphql/connection';
import type { ClinicianRole } from './clinician.entity';
import type { ClinicianView } from './clinicians.repository';

export enum ClinicianRoleValue {
  CLINIC_ADMIN = 'CLINIC_ADMIN',
  CLINIC_MEMBER = 'CLINIC_MEMBER',
  PRESCRIBER = 'PRESCRIBER',
}

registerEnumType(ClinicianRoleValue, {
  name: 'ClinicianRole',
  description: 'What a clinician may do in its clinic.',
  valuesConfig: {
    CLINIC_ADMIN: {
      description: 'Changes the clinic, its clinicians and invitations, removes patients; also all a member does.',
    },
    CLINIC_MEMBER: { description: 'Lists clinicians, manages patients, their tags and reviews.' },
    PRESCRIBER: { description: 'May submit prescriptions; alone, it grants neither reading nor changing the clinic.' },
  },
});

@ObjectType({
  description:
    'A clinician of a clinic: a member (with `userId`), or an invitation not yet accepted (with `inviteId` and no `userId`). The clinic’s members and admins, the clinician itself and server tokens may read it.',
})
export class Clinician {
  @Field(() => ID, { description: 'The clinic.' })
  clinicId!: string;

  @Field(() => ID, { nullable: true, description: 'The member’s account id; null for an invitation.' })
  userId!: string | null;

  @Field(() => ID, {
    nullable: true,
    description: 'The invitation id (24 lowercase hexadecimal characters) while not accepted; null for a member.',
  })
  inviteId!: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'The email address: the member’s, or the one invited (lower-case); null when unknown.',
  })
  email!: string | null;

  @Field(() => String, { nullable: true, description: 'The name shown to the clinic; null when none was given.' })
  name!: string | null;

  @Field(() => [ClinicianRoleValue], { description: 'The roles, at least one, none twice.' })
  roles!: ClinicianRole[];

  @Field(() => Date, { description: 'When the clinician joined or was invited.' })
  createdTime!: Date;

  @Field(() => Date, { description: 'When its roles or name last changed, or the invitation was last sent.' })
  updatedTime!: Date;

  @Field(() => Boolean, {
    nullable: true,
    description:
      'In `clinicianInvites` only: whether the invitee may accept without the key from the invitation’s mail (it has verified the invited address). Null elsewhere.',
  })
  canAccept?: boolean | null;

  static from(view: ClinicianView): Clinician {
    return Object.assign(new Clinician(), view);
  }
}

export const ClinicianConnection = connectionOf(Clinician, 'Clinician', 'clinician');
export type ClinicianConnection = InstanceType<typeof ClinicianConnection>;

@InputType({ description: 'Which clinicians of a clinic to list.' })
export class ClinicianFilter {
  @Field(() => String, { nullable: true, description: 'Text found in the name or the email, in any letter case.' })
  search?: string | null;

  @Field(() => ClinicianRoleValue, { nullable: true, description: 'Only clinicians holding this role.' })
  role?: ClinicianRole | null;

  @Field(() => String, { nullable: true, description: 'Only the clinician with this email (any letter case).' })
  email?: string | null;
}

const ROLES = { description: 'The roles: at least one, none twice.' };

@InputType({ description: 'A clinician the internal endpoint creates (server tokens only).' })
export class CreateClinicianInput {
  @Field(() => ID, { description: 'The clinic.' })
  clinicId!: string;

  @Field(() => ID, {
    nullable: true,
    description: 'The account to make a member; without it, `email` is invited instead.',
  })
  userId?: string | null;

  @Field({ description: 'The clinician’s email address.' })
  email!: string;

  @Field(() => String, { nullable: true, description: 'The name shown to the clinic; not empty when given.' })
  name?: string | null;

  @Field(() => [ClinicianRoleValue], ROLES)
  roles!: ClinicianRole[];
}

@InputType({ description: 'An invitation to join a clinic.' })
export class InviteClinicianInput {
  @Field(() => ID, { description: 'The clinic; the caller must be its CLINIC_ADMIN (or a server token).' })
  clinicId!: string;

  @Field({ description: 'The email invited; the account holding it (as username or email) may accept.' })
  email!: string;

  @Field(() => String, { nullable: true, description: 'The name shown to the clinic; not empty when given.' })
  name?: string | null;

  @Field(() => [ClinicianRoleValue], {
    description: 'The roles the invitee gets on accepting: at least one, none twice.',
  })
  roles!: ClinicianRole[];
}

@InputType({ description: 'An invitation of a clinic.' })
export class ClinicianInviteInput {
  @Field(() => ID, { description: 'The clinic; the caller must be its CLINIC_ADMIN (or a server token).' })
  clinicId!: string;

  @Field(() => ID, { description: 'The invitation id.' })
  inviteId!: string;
}

@InputType({ description: 'An invitation addressed to a user, answered by that user.' })
export class AnswerClinicianInviteInput {
  @Field(() => ID, { description: 'The invited user: the caller (or any, with a server token).' })
  userId!: string;

  @Field(() => ID, { description: 'The invitation id.' })
  inviteId!: string;

  @Field(() => String, {
    nullable: true,
    description:
      'The key from the invitation’s mail: with it any account may answer. Without it, the user must have verified the invited address (FORBIDDEN otherwise).',
  })
  key?: string | null;
}

@InputType({ description: 'New roles (and name) of a member; the last CLINIC_ADMIN keeps that role.' })
export class UpdateClinicianInput {
  @Field(() => ID, { description: 'The clinic; the caller must be its CLINIC_ADMIN (or a server token).' })
  clinicId!: string;

  @Field(() => ID, { description: 'The member’s account id.' })
  userId!: string;

  @Field(() => [ClinicianRoleValue], ROLES)
  roles!: ClinicianRole[];

  @Field(() => String, { nullable: true, description: 'A new name; the name stays when omitted.' })
  name?: string | null;
}

@InputType({ description: 'A member to remove from its clinic.' })
export class RemoveClinicianInput {
  @Field(() => ID, { description: 'The clinic.' })
  clinicId!: string;

  @Field(() => ID, {
    description: 'The member’s account id: any, for a CLINIC_ADMIN or a server token; the caller’s own, to leave.',
  })
  userId!: string;
}

/** The payload of a mutation answering a clinician (`CreateClinicianPayload { clinician }`). */
function clinicianPayload(mutation: string, what: string) {
  @ObjectType(`${mutation[0].toUpperCase()}${mutation.slice(1)}Payload`, {
    description: `The result of \`${mutation}\`.`,
  })
  class Payload {
    @Field(() => Clinician, { description: what })
    clinician!: Clinician;

    static of(view: ClinicianView): Payload {
      return Object.assign(new Payload(), { clinician: Clinician.from(view) });
    }
  }
  return Payload;
}

export const CreateClinicianPayload = clinicianPayload('createClinician', 'The new member, or the new invitation.');
export const InviteClinicianPayload = clinicianPayload('inviteClinician', 'The invitation, as the clinic lists it.');
export const ResendClinicianInvitePayload = clinicianPayload('resendClinicianInvite', 'The invitation, renewed.');
export const AcceptClinicianInvitePayload = clinicianPayload('acceptClinicianInvite', 'The caller as a new member.');
export const UpdateClinicianPayload = clinicianPayload('updateClinician', 'The member as changed.');

@ObjectType({ description: 'The result of `removeClinician`.' })
export class RemoveClinicianPayload {
  @Field(() => ID, { description: 'The clinic.' })
  clinicId!: string;

  @Field(() => ID, { description: 'The removed member’s account id.' })
  userId!: string;
}

/** The payload of a mutation that ends an invitation. */
function inviteGonePayload(mutation: string) {
  @ObjectType(`${mutation[0].toUpperCase()}${mutation.slice(1)}Payload`, {
    description: `The result of \`${mutation}\`.`,
  })
  class Payload {
    @Field(() => ID, { description: 'The invitation that is gone.' })
    inviteId!: string;
  }
  return Payload;
}

export const RevokeClinicianInvitePayload = inviteGonePayload('revokeClinicianInvite');
export const DeclineClinicianInvitePayload = inviteGonePayload('declineClinicianInvite');
