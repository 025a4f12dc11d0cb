import { invalid } from '../../src/kernel/errors';
import { compact, jsonObject, optionalJsonObject, without, withTypes, type JsonType } from '../body';
import type { RestRequest, RestRoute } from '../route';

/** The fields of a legacy user, under their legacy names (aliases translate the GraphQL ones). */
export const USER_FIELDS =
  'userid: userId username emails roles emailVerified termsAccepted createdTime createdUserId modifiedTime modifiedUserId passwordExists: hasPassword';

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
/** For mutations, whose payload holds the user. */
const asPayloadUser = (field: string) => (data: Record<string, unknown>) =>
  legacyUser((data[field] as { user: unknown }).user);

/**
 * A body key the GraphQL input holds for the path's id: refused as GraphQL refused it before the
 * id moved into the input, so the body cannot name another account.
 */
function withPathId(input: Record<string, unknown>, key: string, id: string): Record<string, unknown> {
  if (key in input) throw invalid(`${key} is not a known field`, key);
  return { ...input, [key]: id };
}

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
    document: `mutation ($input: UpdateMeInput!) { updateMe(input: $input) { user { ${USER_FIELDS} } } }`,
    variables: (request) => ({ input: updateInput(request) }),
    respond: asPayloadUser('updateMe'),
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
    document: `mutation ($input: UpdateUserInput!) { updateUser(input: $input) { user { ${USER_FIELDS} } } }`,
    variables: (request) => ({ input: withPathId(updateInput(request), 'userId', request.params.userId) }),
    respond: asPayloadUser('updateUser'),
    status: 200,
  },
  {
    method: 'post',
    path: '/auth/user/:userId/user',
    document: `mutation ($input: CreateCustodialUserInput!) { createCustodialUser(input: $input) { user { ${USER_FIELDS} } } }`,
    variables: ({ params, body }) => ({
      input: withPathId(withTypes(optionalJsonObject(body), CUSTODIAL_TYPES), 'custodianId', params.userId),
    }),
    respond: asPayloadUser('createCustodialUser'),
    status: 201,
  },
  ...['/auth/user/:userId', '/v1/users/:userId'].map((path): RestRoute => ({
    method: 'delete',
    path,
    document: 'mutation ($input: DeleteUserInput!) { deleteUser(input: $input) { deletedUserId } }',
    variables: ({ params, body }) => ({
      input: { userId: params.userId, password: optionalJsonObject(body).password ?? null },
    }),
    status: 204,
    // The specification answers a refused deletion with 401, where other operations say 403.
    errorStatus: { FORBIDDEN: 401 },
  })),
];
