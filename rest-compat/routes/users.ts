import { invalid } from '../../src/kernel/errors';
import { compact, jsonObject, optionalJsonObject, without, withTypes, type JsonType } from '../body';
import type { RestRequest, RestRoute } from '../route';

export const USER_FIELDS =
  'userid username emails roles emailVerified termsAccepted createdTime createdUserId modifiedTime modifiedUserId passwordExists';

/** A user as Tidepool serialises it: empty keys omitted, emailVerified always present. */
export function legacyUser(user: unknown): Record<string, unknown> {
  return compact(user as Record<string, unknown>);
}

/** Response-only fields clients echo back from a GET; accepted and ignored (spec UpdateUser). */
const READ_ONLY_FIELDS = [
  'userid',
  'createdTime',
  'createdUserId',
  'modifiedTime',
  'modifiedUserId',
  'deletedTime',
  'deletedUserId',
  'passwordExists',
];

const UPDATE_TYPES: Record<string, JsonType> = {
  username: 'string',
  emails: 'strings',
  password: 'string',
  termsAccepted: 'string',
  roles: 'strings',
  emailVerified: 'boolean',
  currentPassword: 'string',
};

const CUSTODIAL_TYPES: Record<string, JsonType> = { username: 'string', emails: 'strings' };

/**
 * Update bodies come wrapped (`{"updates": {...}}`, what Tidepool clients send) or flat (the
 * specification's form, where emailVerified is required).
 */
export function updateInput({ body }: RestRequest): Record<string, unknown> {
  const object = jsonObject(body);
  if ('updates' in object)
    return withTypes(without(jsonObject(object.updates, 'updates'), READ_ONLY_FIELDS), UPDATE_TYPES);
  if (!('emailVerified' in object)) {
    throw invalid(
      'emailVerified is required in an update body (or wrap the changes as {"updates": {...}})',
      'emailVerified',
    );
  }
  if (typeof object.emailVerified !== 'boolean') throw invalid('"emailVerified" must be a boolean', 'emailVerified');
  return withTypes(without(object, READ_ONLY_FIELDS), UPDATE_TYPES);
}

const asUser = (field: string) => (data: Record<string, unknown>) => legacyUser(data[field]);

export const userRoutes: RestRoute[] = [
  {
    method: 'get',
    path: '/auth/user',
    document: `query { me { ${USER_FIELDS} } }`,
    respond: asUser('me'),
    status: 200,
  },
  {
    method: 'put',
    path: '/auth/user',
    document: `mutation ($input: UserUpdateInput!) { updateMe(input: $input) { ${USER_FIELDS} } }`,
    variables: (request) => ({ input: updateInput(request) }),
    respond: asUser('updateMe'),
    status: 200,
  },
  ...['/auth/user/:userId', '/v1/users/:userId'].map((path): RestRoute => ({
    method: 'get',
    path,
    document: `query ($id: ID!) { user(id: $id) { ${USER_FIELDS} } }`,
    variables: ({ params }) => ({ id: params.userId }),
    respond: asUser('user'),
    status: 200,
  })),
  {
    method: 'put',
    path: '/auth/user/:userId',
    document: `mutation ($id: ID!, $input: UserUpdateInput!) { updateUser(id: $id, input: $input) { ${USER_FIELDS} } }`,
    variables: (request) => ({ id: request.params.userId, input: updateInput(request) }),
    respond: asUser('updateUser'),
    status: 200,
  },
  {
    method: 'post',
    path: '/auth/user/:userId/user',
    document: `mutation ($custodian: ID!, $input: CustodialUserInput!) { createCustodialUser(custodianId: $custodian, input: $input) { ${USER_FIELDS} } }`,
    variables: ({ params, body }) => ({
      custodian: params.userId,
      input: withTypes(optionalJsonObject(body), CUSTODIAL_TYPES),
    }),
    respond: asUser('createCustodialUser'),
    status: 201,
  },
  ...['/auth/user/:userId', '/v1/users/:userId'].map((path): RestRoute => ({
    method: 'delete',
    path,
    document: 'mutation ($id: ID!, $password: String) { deleteUser(id: $id, password: $password) }',
    variables: ({ params, body }) => ({ id: params.userId, password: optionalJsonObject(body).password ?? null }),
    status: 204,
    // The specification answers a refused deletion with 401, where other operations say 403.
    errorStatus: { FORBIDDEN: 401 },
  })),
];
