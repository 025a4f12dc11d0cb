import { oneParameter } from '../query-parameters';
import { jsonObject, optionalJsonObject, without, withTypes } from '../body';
import { CLINICIAN_ROLE } from '../enums';
import type { RestRequest, RestRoute } from '../route';
import { CLINICIAN, CLINICIAN_FIELDS, legacyClinician, OFFSET_PAGING, offsetPaging } from './clinics';
import { arrayOf, dateTime, graphqlInput, legacyEnum, object, queryParameter, string } from '../openapi/schemas';

const CLINICIAN_PAGES = offsetPaging(['clinic', 'clinicians']);

/** Response-only fields of a clinician that clients echo back: ignored. */
const IGNORED_FIELDS = ['inviteId', 'createdTime', 'updatedTime'];

/** `roles` checked as a list of known roles before GraphQL would coerce a lone string into one. */
function rolesOf(body: Record<string, unknown>): unknown {
  withTypes(body, { roles: 'strings', email: 'string', name: 'string' });
  return Array.isArray(body.roles) ? CLINICIAN_ROLE.values(body.roles as string[], 'roles') : body.roles;
}

function clinicianFilter({ query }: RestRequest) {
  const role = oneParameter(query, 'role');
  return {
    search: oneParameter(query, 'search'),
    email: oneParameter(query, 'email'),
    role: role && CLINICIAN_ROLE.value(role, 'role'),
  };
}

/**
 * An invitation as Tidepool's confirmation service lists it to the invitee: `key` is the
 * invitation id to accept or decline it with, `creator` names the clinic.
 */
function legacyInvitation(value: unknown): Record<string, unknown> {
  const invite = value as Record<string, unknown> & { clinic: { id: string; name: string } };
  return {
    key: invite.inviteId,
    type: 'clinician_invitation',
    status: 'pending',
    email: invite.email,
    clinicId: invite.clinicId,
    creator: { clinicId: invite.clinic.id, clinicName: invite.clinic.name },
    roles: invite.roles,
    created: invite.createdTime,
    modified: invite.updatedTime,
    // Without the mail's key, only an invitee that verified the address may accept (listed to it only).
    restrictions: { canAccept: invite.canAccept ?? false },
  };
}

/** An invitation as the invitee sees it. */
const INVITATION = object(
  {
    key: string(),
    type: { const: 'clinician_invitation' },
    status: string(),
    email: string(),
    clinicId: string(),
    creator: object({ clinicId: string(), clinicName: string() }),
    roles: { type: 'array', items: legacyEnum(CLINICIAN_ROLE) },
    created: dateTime,
    modified: dateTime,
  },
  ['key', 'type', 'status', 'email', 'clinicId', 'creator', 'roles'],
);

const INVITATION_FIELDS = `${CLINICIAN_FIELDS} clinic { id name }`;
/** An invitation in its invitee's list, which says whether it may accept without the key. */
const LISTED_INVITATION_FIELDS = `${INVITATION_FIELDS} canAccept`;

/** The key from an invitation's mail, optional in an answer's body (`{"key": "..."}`). */
const keyOf = (body: unknown) => withTypes(optionalJsonObject(body), { key: 'string' }).key ?? null;

/** An answer's optional body: the key from the mail; without it the invited address must be verified. */
const ANSWER_BODY = {
  schema: object({ key: string('The key from the invitation’s mail; needed unless the invited address is verified') }),
  required: false,
  example: { key: 'the-key-from-the-mail' },
};

const payloadClinician = (field: string) => (data: Record<string, unknown>) =>
  legacyClinician((data[field] as { clinician: unknown }).clinician);

export const clinicianRoutes: RestRoute[] = [
  {
    method: 'get',
    path: '/v1/clinics/:clinicId/clinicians',
    doc: {
      tag: 'Clinicians',
      summary: "A clinic's clinicians",
      parameters: [
        queryParameter('search', string(), 'Only clinicians whose name or email contains this'),
        queryParameter('email', string(), 'Only the clinician with this email'),
        queryParameter('role', legacyEnum(CLINICIAN_ROLE), 'Only clinicians with this role'),
        ...OFFSET_PAGING,
      ],
      response: arrayOf(CLINICIAN),
      tidepool: 'clinic.v1.yaml#ListClinicians',
    },
    document: `query ($id: ID!, $filter: ClinicianFilter, $first: Int, $after: String, $offset: Int) { clinic(id: $id) {
      clinicians(filter: $filter, first: $first, after: $after, offset: $offset) { nodes { ${CLINICIAN_FIELDS} } pageInfo { hasNextPage endCursor } } } }`,
    variables: (request) => {
      return { id: request.params.clinicId, filter: clinicianFilter(request), ...CLINICIAN_PAGES.variables(request) };
    },
    pages: CLINICIAN_PAGES.pages,
    respond: (data, _reply, request) => CLINICIAN_PAGES.rows(data, request).map(legacyClinician),
    status: 200,
  },
  {
    method: 'post',
    path: '/v1/clinics/:clinicId/clinicians',
    doc: {
      tag: 'Clinicians',
      summary: 'Add a clinician to a clinic (servers only)',
      body: {
        schema: {
          allOf: [graphqlInput('CreateClinicianInput', ['clinicId', 'userId']), object({ id: string('The account') })],
        },
        example: { id: '0123456789', email: 'dr.lee@example.com', name: 'Dr. Lee', roles: ['CLINIC_MEMBER'] },
      },
      response: CLINICIAN,
      errors: [409, 429],
      tidepool: 'clinic.v1.yaml#CreateClinician',
    },
    document: `mutation ($input: CreateClinicianInput!) { createClinician(input: $input) { clinician { ${CLINICIAN_FIELDS} } } }`,
    variables: ({ params, body }) => {
      const { id, ...fields } = without(jsonObject(body), IGNORED_FIELDS);
      withTypes({ id }, { id: 'string' });
      return { input: { ...fields, roles: rolesOf(fields), userId: id, clinicId: params.clinicId } };
    },
    respond: payloadClinician('createClinician'),
    status: 200,
  },
  {
    method: 'get',
    path: '/v1/clinics/:clinicId/clinicians/:clinicianId',
    doc: {
      tag: 'Clinicians',
      summary: 'A clinician of a clinic',
      response: CLINICIAN,
      tidepool: 'clinic.v1.yaml#GetClinician',
    },
    document: `query ($id: ID!, $userId: ID!) { clinic(id: $id) { clinician(userId: $userId) { ${CLINICIAN_FIELDS} } } }`,
    variables: ({ params }) => ({ id: params.clinicId, userId: params.clinicianId }),
    respond: (data) => legacyClinician((data.clinic as { clinician: unknown }).clinician),
    status: 200,
  },
  {
    method: 'put',
    path: '/v1/clinics/:clinicId/clinicians/:clinicianId',
    doc: {
      tag: 'Clinicians',
      summary: "Change a clinician's name or roles",
      body: {
        schema: graphqlInput('UpdateClinicianInput', ['clinicId', 'userId']),
        example: { name: 'Dr. Lee', roles: ['CLINIC_ADMIN'] },
      },
      response: CLINICIAN,
      errors: [409],
      tidepool: 'clinic.v1.yaml#UpdateClinician',
    },
    document: `mutation ($input: UpdateClinicianInput!) { updateClinician(input: $input) { clinician { ${CLINICIAN_FIELDS} } } }`,
    variables: ({ params, body }) => {
      // The account and its email are the path's and the account's: a body naming them changes neither.
      const fields = without(jsonObject(body), [...IGNORED_FIELDS, 'id', 'email']);
      return { input: { ...fields, roles: rolesOf(fields), clinicId: params.clinicId, userId: params.clinicianId } };
    },
    respond: payloadClinician('updateClinician'),
    status: 200,
  },
  {
    method: 'delete',
    path: '/v1/clinics/:clinicId/clinicians/:clinicianId',
    doc: {
      tag: 'Clinicians',
      summary: 'Remove a clinician from a clinic',
      errors: [409],
      tidepool: 'clinic.v1.yaml#DeleteClinician',
    },
    document: 'mutation ($input: RemoveClinicianInput!) { removeClinician(input: $input) { userId } }',
    variables: ({ params }) => ({ input: { clinicId: params.clinicId, userId: params.clinicianId } }),
    status: 200,
  },
  {
    method: 'post',
    path: '/v1/clinics/:clinicId/invites/clinicians',
    doc: {
      tag: 'Clinicians',
      summary: 'Invite someone, by email, to be a clinician of a clinic',
      body: {
        schema: graphqlInput('InviteClinicianInput', ['clinicId']),
        example: { email: 'dr.lee@example.com', name: 'Dr. Lee', roles: ['CLINIC_MEMBER', 'PRESCRIBER'] },
      },
      response: CLINICIAN,
      errors: [409, 429],
      tidepool: 'clinic.v1.yaml#InviteClinician',
    },
    document: `mutation ($input: InviteClinicianInput!) { inviteClinician(input: $input) { clinician { ${CLINICIAN_FIELDS} } } }`,
    variables: ({ params, body }) => {
      const fields = jsonObject(body);
      return { input: { ...fields, roles: rolesOf(fields), clinicId: params.clinicId } };
    },
    respond: payloadClinician('inviteClinician'),
    status: 200,
  },
  {
    method: 'patch',
    path: '/v1/clinics/:clinicId/invites/clinicians/:inviteId',
    doc: {
      tag: 'Clinicians',
      summary: 'Send an invitation again',
      response: INVITATION,
      errors: [429],
      tidepool: 'clinic.v1.yaml#ResendInvite',
    },
    document: `mutation ($input: ClinicianInviteInput!) { resendClinicianInvite(input: $input) { clinician { ${INVITATION_FIELDS} } } }`,
    variables: ({ params }) => ({ input: { clinicId: params.clinicId, inviteId: params.inviteId } }),
    respond: (data) => legacyInvitation((data.resendClinicianInvite as { clinician: unknown }).clinician),
    status: 200,
  },
  {
    method: 'delete',
    path: '/v1/clinics/:clinicId/invites/clinicians/:inviteId',
    doc: { tag: 'Clinicians', summary: 'Revoke an invitation', tidepool: 'clinic.v1.yaml#DeleteInvite' },
    document: 'mutation ($input: ClinicianInviteInput!) { revokeClinicianInvite(input: $input) { inviteId } }',
    variables: ({ params }) => ({ input: { clinicId: params.clinicId, inviteId: params.inviteId } }),
    status: 200,
  },
  {
    method: 'get',
    path: '/v1/clinics/:clinicId/invites/clinicians/:inviteId',
    doc: {
      tag: 'Clinicians',
      summary: 'An invitation',
      response: INVITATION,
      tidepool: 'clinic.v1.yaml#GetClinicianInvite',
    },
    document: `query ($id: ID!, $inviteId: ID!) { clinic(id: $id) { clinicianInvite(inviteId: $inviteId) { ${INVITATION_FIELDS} } } }`,
    variables: ({ params }) => ({ id: params.clinicId, inviteId: params.inviteId }),
    respond: (data) => legacyInvitation((data.clinic as { clinicianInvite: unknown }).clinicianInvite),
    status: 200,
  },
  {
    method: 'get',
    path: '/v1/clinics/:clinicId/invites/clinicians/:inviteId/clinician',
    doc: {
      tag: 'Clinicians',
      summary: 'The clinician an invitation would make',
      response: CLINICIAN,
      tidepool: 'clinic.v1.yaml#GetInvitedClinician',
    },
    document: `query ($id: ID!, $inviteId: ID!) { clinic(id: $id) { clinicianInvite(inviteId: $inviteId) { ${CLINICIAN_FIELDS} } } }`,
    variables: ({ params }) => ({ id: params.clinicId, inviteId: params.inviteId }),
    respond: (data) => legacyClinician((data.clinic as { clinicianInvite: unknown }).clinicianInvite),
    status: 200,
  },
  {
    method: 'get',
    path: '/v1/clinicians/:userId/invites',
    doc: {
      tag: 'Clinicians',
      summary: 'The invitations an account may accept',
      response: arrayOf(INVITATION),
      tidepool: 'clinic.v1.yaml#ListClinicianInvites',
    },
    document: `query ($userId: ID!, $after: String) { clinicianInvites(userId: $userId, first: 100, after: $after) {
      nodes { ${LISTED_INVITATION_FIELDS} } pageInfo { hasNextPage endCursor } } }`,
    variables: ({ params }) => ({ userId: params.userId }),
    pages: { path: ['clinicianInvites'] },
    respond: (data) => (data.clinicianInvites as { nodes: unknown[] }).nodes.map(legacyInvitation),
    status: 200,
  },
  {
    method: 'put',
    path: '/v1/clinicians/:userId/invites/:inviteId',
    doc: {
      tag: 'Clinicians',
      summary: 'Accept an invitation: the account becomes a clinician of the clinic',
      body: ANSWER_BODY,
      response: CLINICIAN,
      errors: [409],
      tidepool: 'clinic.v1.yaml#AcceptClinicianInvite',
    },
    document: `mutation ($input: AnswerClinicianInviteInput!) { acceptClinicianInvite(input: $input) { clinician { ${CLINICIAN_FIELDS} } } }`,
    variables: ({ params, body }) => ({
      input: { userId: params.userId, inviteId: params.inviteId, key: keyOf(body) },
    }),
    respond: payloadClinician('acceptClinicianInvite'),
    status: 200,
  },
  {
    method: 'delete',
    path: '/v1/clinicians/:userId/invites/:inviteId',
    doc: {
      tag: 'Clinicians',
      summary: 'Decline an invitation',
      body: ANSWER_BODY,
      tidepool: 'clinic.v1.yaml#DismissClinicianInvite',
    },
    document: 'mutation ($input: AnswerClinicianInviteInput!) { declineClinicianInvite(input: $input) { inviteId } }',
    variables: ({ params, body }) => ({
      input: { userId: params.userId, inviteId: params.inviteId, key: keyOf(body) },
    }),
    status: 200,
  },
];
