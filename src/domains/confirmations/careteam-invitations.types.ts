import { Field, ID, InputType, ObjectType, registerEnumType } from 'type-graphql';
import { PermissionNameValue } from '../permissions/permission.types';
import type { Permission } from '../permissions/permission.model';
import type { ConfirmationStatus } from './confirmation.entity';
import type { CareTeamInvitation as InvitationRecord } from './careteam-invitations.service';

export enum ConfirmationStatusValue {
  PENDING = 'pending',
  COMPLETED = 'completed',
  CANCELED = 'canceled',
  DECLINED = 'declined',
}

registerEnumType(ConfirmationStatusValue, {
  name: 'ConfirmationStatus',
  description: 'Where a mailed confirmation stands; only PENDING can still be answered.',
  valuesConfig: {
    PENDING: { description: 'Sent, not yet answered; its key works until it expires.' },
    COMPLETED: { description: 'Accepted: its key is used up.' },
    CANCELED: { description: 'Withdrawn by its sender, or replaced by a newer key.' },
    DECLINED: { description: 'Dismissed by its recipient.' },
  },
});

@ObjectType({
  description:
    'An invitation, by email, to see and act on an account’s data (Tidepool’s care-team invitation): its sharer, its invitee’s address, and what accepting grants.',
})
export class CareTeamInvitation {
  @Field(() => ID, {
    description:
      'The invitation’s public handle (Tidepool’s `key` in lists). The secret key is in the mail only; an invitee that has verified the address may answer with this handle instead.',
  })
  id!: string;

  @Field(() => ID, { description: 'The account whose data is shared (Tidepool’s `creatorId`).' })
  sharerId!: string;

  @Field(() => String, { description: 'The invited address, lower-cased.' })
  email!: string;

  @Field(() => [PermissionNameValue], { description: 'Exactly what accepting grants on the sharer’s data.' })
  permissions!: Permission[];

  @Field(() => ConfirmationStatusValue, { description: 'Pending, or how it was answered.' })
  status!: ConfirmationStatus;

  @Field(() => Date, { description: 'When it was sent.' })
  created!: Date;

  @Field(() => Date, { nullable: true, description: 'When it was answered or withdrawn.' })
  modified!: Date | null;

  @Field(() => Date, { description: 'After this, its key opens nothing; the sharer may invite again.' })
  expiresAt!: Date;

  @Field(() => Boolean, {
    description: 'Whether the caller may accept it by its handle alone (it has verified the invited address).',
  })
  canAccept!: boolean;

  static from(record: InvitationRecord): CareTeamInvitation {
    return Object.assign(new CareTeamInvitation(), record);
  }
}

@InputType({ description: 'An invitation to send: the address and the permissions it offers.' })
export class SendCareTeamInvitationInput {
  @Field(() => ID, { description: 'The account whose data is shared: the caller, or one it is custodian of.' })
  sharerId!: string;

  @Field(() => String, { description: 'The address to invite; the mail with the key goes there.' })
  email!: string;

  @Field(() => [PermissionNameValue], { description: 'What accepting grants: at least one, not ROOT.' })
  permissions!: string[];
}

@InputType({ description: 'An invitee’s answer to a care-team invitation.' })
export class AnswerCareTeamInvitationInput {
  @Field(() => ID, { description: 'The invitee: the caller (or any, with a server token).' })
  userId!: string;

  @Field(() => ID, { description: 'The sharer who sent the invitation.' })
  invitedBy!: string;

  @Field(() => String, {
    description:
      'The key from the mail; or the invitation’s handle (`id`) when the caller has verified the invited address.',
  })
  key!: string;
}

@InputType({ description: 'The invitation a sharer withdraws.' })
export class CancelCareTeamInvitationInput {
  @Field(() => ID, { description: 'The sharer: the caller, or one it is custodian of.' })
  sharerId!: string;

  @Field(() => String, { description: 'The invited address.' })
  email!: string;
}

@ObjectType({ description: 'The result of a care-team invitation mutation.' })
export class CareTeamInvitationPayload {
  @Field(() => CareTeamInvitation, { description: 'The invitation as it stands now.' })
  invitation!: CareTeamInvitation;

  static of(record: InvitationRecord): CareTeamInvitationPayload {
    return Object.assign(new CareTeamInvitationPayload(), { invitation: CareTeamInvitation.from(record) });
  }
}
