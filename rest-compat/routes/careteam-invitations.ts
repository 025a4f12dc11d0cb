import { jsonObject, withTypes } from '../body';
import type { RestRoute } from '../route';
import { arrayOf, dateTime, object, string } from '../openapi/schemas';
import { permissionNames, permissionSet } from './permissions';

interface Invitation {
  id: string;
  sharerId: string;
  email: string;
  permissions: string[];
  status: string;
  created: string;
  modified: string | null;
  expiresAt: string;
  canAccept: boolean;
}

const INVITATION_FIELDS = 'id sharerId email permissions status created modified expiresAt canAccept';

/**
 * A care-team invitation as Tidepool's confirmation model has it (confirm/models/confirmation.v1.yaml):
 * `key` is the public handle (the secret key is in the mail only), `creatorId` the sharer, and
 * `context` the offered permission set as a JSON string, as hydrophone stores it.
 */
function legacyInvitation(value: unknown, received = false): Record<string, unknown> {
  const invitation = value as Invitation;
  return {
    key: invitation.id,
    type: 'careteam_invitation',
    status: invitation.status.toLowerCase(),
    email: invitation.email,
    creatorId: invitation.sharerId,
    created: invitation.created,
    ...(invitation.modified ? { modified: invitation.modified } : {}),
    context: JSON.stringify(permissionSet(invitation.permissions)),
    ...(received ? { restrictions: { canAccept: invitation.canAccept } } : {}),
    expiresAt: invitation.expiresAt,
  };
}

const CONFIRMATION = object(
  {
    key: string('The invitation’s public handle; the secret key is in the mail'),
    type: { const: 'careteam_invitation' },
    status: { type: 'string', enum: ['pending', 'completed', 'canceled', 'declined'] },
    email: string(),
    creatorId: string('The sharer'),
    created: dateTime,
    modified: dateTime,
    context: string('The offered permission set, as a JSON string'),
    restrictions: object({ canAccept: { type: 'boolean' } }, ['canAccept']),
    expiresAt: dateTime,
  },
  ['key', 'type', 'status', 'email', 'creatorId', 'created', 'expiresAt'],
);

const KEY_BODY = object(
  { key: string('The key from the mail, or the listed `key` of an invitation to a verified address') },
  ['key'],
);

const payload = (field: string) => (data: Record<string, unknown>) =>
  legacyInvitation((data[field] as { invitation: unknown }).invitation);

/** The key of an answer's body: a string. */
function keyOf(body: unknown): unknown {
  return withTypes(jsonObject(body), { key: 'string' }).key;
}

export const careTeamInvitationRoutes: RestRoute[] = [
  {
    method: 'post',
    path: '/confirm/send/invite/:userId',
    doc: {
      tag: 'Confirmations',
      summary: 'Invite an address to the care team of an account; the key is mailed there',
      body: {
        schema: object({ email: string(), permissions: { type: 'object', description: 'A permission set' } }, [
          'email',
          'permissions',
        ]),
        example: { email: 'carer@example.com', permissions: { view: {}, note: {} } },
      },
      response: CONFIRMATION,
      errors: [409, 429],
    },
    document: `mutation ($input: SendCareTeamInvitationInput!) { sendCareTeamInvitation(input: $input) { invitation { ${INVITATION_FIELDS} } } }`,
    variables: ({ params, body }) => {
      const fields = withTypes(jsonObject(body), { email: 'string' });
      return {
        input: { sharerId: params.userId, email: fields.email, permissions: permissionNames(fields.permissions) },
      };
    },
    respond: payload('sendCareTeamInvitation'),
    status: 200,
  },
  {
    method: 'get',
    path: '/confirm/invite/:userId',
    doc: {
      tag: 'Confirmations',
      summary: 'The pending care-team invitations an account sent',
      response: arrayOf(CONFIRMATION),
    },
    document: `query ($id: ID!) { sentCareTeamInvitations(sharerId: $id) { ${INVITATION_FIELDS} } }`,
    variables: ({ params }) => ({ id: params.userId }),
    respond: (data) => (data.sentCareTeamInvitations as unknown[]).map((each) => legacyInvitation(each)),
    status: 200,
  },
  {
    method: 'get',
    path: '/confirm/invitations/:userId',
    doc: {
      tag: 'Confirmations',
      summary: 'The pending care-team invitations to the addresses an account has verified',
      response: arrayOf(CONFIRMATION),
    },
    document: `query ($id: ID!) { receivedCareTeamInvitations(userId: $id) { ${INVITATION_FIELDS} } }`,
    variables: ({ params }) => ({ id: params.userId }),
    respond: (data) => (data.receivedCareTeamInvitations as unknown[]).map((each) => legacyInvitation(each, true)),
    status: 200,
  },
  {
    method: 'put',
    path: '/confirm/accept/invite/:userId/:invitedBy',
    doc: {
      tag: 'Confirmations',
      summary: 'Accept a care-team invitation: the account gets exactly the permissions offered',
      body: { schema: KEY_BODY, example: { key: 'the-key-from-the-mail' } },
      response: CONFIRMATION,
      errors: [409],
    },
    document: `mutation ($input: AnswerCareTeamInvitationInput!) { acceptCareTeamInvitation(input: $input) { invitation { ${INVITATION_FIELDS} } } }`,
    variables: ({ params, body }) => ({
      input: { userId: params.userId, invitedBy: params.invitedBy, key: keyOf(body) },
    }),
    respond: payload('acceptCareTeamInvitation'),
    status: 200,
  },
  {
    method: 'put',
    path: '/confirm/dismiss/invite/:userId/:invitedBy',
    doc: {
      tag: 'Confirmations',
      summary: 'Dismiss (decline) a care-team invitation',
      body: { schema: KEY_BODY, example: { key: 'the-key-from-the-mail' } },
      response: CONFIRMATION,
      errors: [409],
    },
    document: `mutation ($input: AnswerCareTeamInvitationInput!) { dismissCareTeamInvitation(input: $input) { invitation { ${INVITATION_FIELDS} } } }`,
    variables: ({ params, body }) => ({
      input: { userId: params.userId, invitedBy: params.invitedBy, key: keyOf(body) },
    }),
    respond: payload('dismissCareTeamInvitation'),
    status: 200,
  },
  {
    method: 'put',
    path: '/confirm/:userId/invited/:address',
    doc: {
      tag: 'Confirmations',
      summary: 'Withdraw a pending care-team invitation of an address',
      response: CONFIRMATION,
    },
    document: `mutation ($input: CancelCareTeamInvitationInput!) { cancelCareTeamInvitation(input: $input) { invitation { ${INVITATION_FIELDS} } } }`,
    variables: ({ params }) => ({ input: { sharerId: params.userId, email: params.address } }),
    respond: payload('cancelCareTeamInvitation'),
    status: 200,
  },
];
