import { invalid } from '../../src/kernel/errors';
import { compact, jsonObject, optionalJsonObject, without, withTypes, type JsonType } from '../body';
import type { JsonSchema, RestRequest, RestRoute } from '../route';
import { graphqlInput, object, string, USER } from '../openapi/schemas';

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

/** Both forms of an update body: wrapped (what Tidepool clients send) or flat, with emailVerified. */
const updateBody = (input: string, omit: string[] = []): JsonSchema => ({
  oneOf: [
    object({ updates: graphqlInput(input, omit) }, ['updates']),
    { allOf: [graphqlInput(input, omit), { required: ['emailVerified'] }] },
  ],
});

export const userRoutes: RestRoute[] = [
  {
    method: 'get',
    path: '/auth/user',
    doc: {
      tag: 'Users',
      summary: 'The account of the token sent',
      response: USER,
      tidepool: 'auth.v1.yaml#GetCurrentUserInfo',
    },
    document: `query { me { ${USER_FIELDS} } }`,
    respond: asUser('me'),
    status: 200,
  },
  {
    method: 'put',
    path: '/auth/user',
    doc: {
      tag: 'Users',
      summary: 'Update the account of the token sent',
      body: { schema: updateBody('UpdateMeInput'), example: { updates: { termsAccepted: '2024-01-02T03:04:05Z' } } },
      response: USER,
      // 429: the current password is checked within the password budget.
      errors: [409, 429],
      tidepool: 'auth.v1.yaml#UpdateCurrentUser',
    },
    document: `mutation ($input: UpdateMeInput!) { updateMe(input: $input) { user { ${USER_FIELDS} } } }`,
    variables: (request) => ({ input: updateInput(request) }),
    respond: asPayloadUser('updateMe'),
    status: 200,
  },
  ...['/auth/user/:userId', '/v1/users/:userId'].map((path): RestRoute => ({
    method: 'get',
    path,
    doc: {
      tag: 'Users',
      summary: 'An account',
      response: USER,
      ...(path.startsWith('/auth/') && { tidepool: 'auth.v1.yaml#GetUserInfo' as const }),
    },
    document: `query ($id: ID!) { user(id: $id) { ${USER_FIELDS} } }`,
    variables: ({ params }) => ({ id: params.userId }),
    respond: asUser('user'),
    status: 200,
  })),
  {
    method: 'put',
    path: '/auth/user/:userId',
    doc: {
      tag: 'Users',
      summary: 'Update an account',
      body: {
        schema: updateBody('UpdateUserInput', ['userId']),
        example: { updates: { username: 'sam@example.com', emails: ['sam@example.com'] } },
      },
      response: USER,
      errors: [409, 429],
      tidepool: 'auth.v1.yaml#UpdateUser',
    },
    document: `mutation ($input: UpdateUserInput!) { updateUser(input: $input) { user { ${USER_FIELDS} } } }`,
    variables: (request) => ({ input: withPathId(updateInput(request), 'userId', request.params.userId) }),
    respond: asPayloadUser('updateUser'),
    status: 200,
  },
  {
    method: 'post',
    path: '/auth/user/:userId/user',
    doc: {
      tag: 'Users',
      summary: "Create a custodial account, in the custody of the path's account",
      body: {
        schema: graphqlInput('CreateCustodialUserInput', ['custodianId']),
        required: false,
        example: { username: 'kid@example.com', emails: ['kid@example.com'] },
      },
      response: USER,
      errors: [409],
      tidepool: 'auth.v1.yaml#CreateCustodialUser',
    },
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
    doc: {
      tag: 'Users',
      summary: 'Delete an account and its data',
      description: 'The account itself must send its current password; custodians and servers need none.',
      body: { schema: object({ password: string() }), required: false, example: { password: 'correct-horse-7' } },
      errors: [429],
      ...(path.startsWith('/auth/') && { tidepool: 'auth.v1.yaml#DeleteUser' as const }),
    },
    document: 'mutation ($input: DeleteUserInput!) { deleteUser(input: $input) { deletedUserId } }',
    variables: ({ params, body }) => ({
      input: { userId: params.userId, password: optionalJsonObject(body).password ?? null },
    }),
    status: 204,
    // The specification answers a refused deletion with 401, where other operations say 403.
    errorStatus: { FORBIDDEN: 401 },
  })),
];
