import { Arg, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { Scope } from '../../kernel/scope';
import { CareTeamInvitationsService } from './careteam-invitations.service';
import {
  AnswerCareTeamInvitationInput,
  CancelCareTeamInvitationInput,
  CareTeamInvitation,
  CareTeamInvitationPayload,
  SendCareTeamInvitationInput,
} from './careteam-invitations.types';

/** Care-team invitations by email (Tidepool's share-by-email); the rules are the service's. */
@Resolver(() => CareTeamInvitation)
export class CareTeamInvitationsResolver {
  constructor(private readonly invitations: CareTeamInvitationsService) {}

  @Query(() => [CareTeamInvitation], {
    description:
      'The pending invitations an account sent, newest first: for the account, its custodians and server tokens.',
  })
  async sentCareTeamInvitations(
    @Arg('sharerId', () => ID, { description: 'The sharer.' }) sharerId: string,
    @Ctx() scope: Scope,
  ): Promise<CareTeamInvitation[]> {
    return (await this.invitations.sent(scope, sharerId)).map(CareTeamInvitation.from);
  }

  @Query(() => [CareTeamInvitation], {
    description:
      'The pending invitations addressed to an address the account has verified, newest first: for the account and server tokens. Invitations to addresses it has not verified are answered with the key from their mail.',
  })
  async receivedCareTeamInvitations(
    @Arg('userId', () => ID, { description: 'The invitee.' }) userId: string,
    @Ctx() scope: Scope,
  ): Promise<CareTeamInvitation[]> {
    return (await this.invitations.received(scope, userId)).map(CareTeamInvitation.from);
  }

  @Mutation(() => CareTeamInvitationPayload, {
    description:
      'Invites an address to the sharer’s care team and mails it the key: the sharer, its custodians (through a clinic: its CLINIC_ADMINs) and server tokens. CONFLICT when the address already has access or a pending invitation; RATE_LIMITED when the address or the caller has had its share of mail.',
  })
  async sendCareTeamInvitation(
    @Arg('input', () => SendCareTeamInvitationInput, {
      description: 'The sharer, the address and the permissions offered.',
    })
    input: SendCareTeamInvitationInput,
    @Ctx() scope: Scope,
  ): Promise<CareTeamInvitationPayload> {
    return CareTeamInvitationPayload.of(await this.invitations.send(scope, input.sharerId, input));
  }

  @Mutation(() => CareTeamInvitationPayload, {
    description:
      'The invitee accepts: it holds exactly the permissions offered on the sharer’s data. NOT_FOUND for an unknown, expired or foreign key; CONFLICT for one already used.',
  })
  async acceptCareTeamInvitation(
    @Arg('input', () => AnswerCareTeamInvitationInput, { description: 'The invitee, the sharer and the key.' })
    input: AnswerCareTeamInvitationInput,
    @Ctx() scope: Scope,
  ): Promise<CareTeamInvitationPayload> {
    const { userId, invitedBy, key } = input;
    return CareTeamInvitationPayload.of(await this.invitations.accept(scope, userId, invitedBy, key));
  }

  @Mutation(() => CareTeamInvitationPayload, { description: 'The invitee dismisses (declines) the invitation.' })
  async dismissCareTeamInvitation(
    @Arg('input', () => AnswerCareTeamInvitationInput, { description: 'The invitee, the sharer and the key.' })
    input: AnswerCareTeamInvitationInput,
    @Ctx() scope: Scope,
  ): Promise<CareTeamInvitationPayload> {
    const { userId, invitedBy, key } = input;
    return CareTeamInvitationPayload.of(await this.invitations.dismiss(scope, userId, invitedBy, key));
  }

  @Mutation(() => CareTeamInvitationPayload, {
    description: 'The sharer (or its custodian) withdraws its pending invitation of an address.',
  })
  async cancelCareTeamInvitation(
    @Arg('input', () => CancelCareTeamInvitationInput, { description: 'The sharer and the invited address.' })
    input: CancelCareTeamInvitationInput,
    @Ctx() scope: Scope,
  ): Promise<CareTeamInvitationPayload> {
    return CareTeamInvitationPayload.of(await this.invitations.cancel(scope, input.sharerId, input.email));
  }
}
