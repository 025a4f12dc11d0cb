import { invalid, notFound } from '../../src/kernel/errors';
import { jsonObject } from '../body';
import { PERMISSION_NAME } from '../enums';
import type { RestRoute } from '../route';
import { PERMISSION_GROUPS, PERMISSION_SET } from '../openapi/schemas';

type Share = { userId: string; permissions: string[] };

/** `["view","note"]` → `{"view":{},"note":{}}`: permission values on the wire are empty objects. */
export type PermissionSet = Record<string, Record<string, never>>;

/** GraphQL permission names (`VIEW`) → the legacy permission set. */
export function permissionSet(names: readonly string[]): PermissionSet {
  return Object.fromEntries(names.map((name) => [PERMISSION_NAME.legacy(name), {}]));
}

/**
 * A permission group as Tidepool answers it: user id → permission set, the owner first with
 * `root` (GraphQL lists the other accounts only; the owner's own group is implied).
 */
function groupMap(ownerId: string, shares: Share[]): Record<string, PermissionSet> {
  return {
    [ownerId]: permissionSet(['ROOT']),
    ...Object.fromEntries(shares.map((share) => [share.userId, permissionSet(share.permissions)])),
  };
}

/** A share list read whole: the router follows `endCursor` while there are more pages. */
const SHARE_PAGE = 'first: 100, after: $after) { nodes { userId permissions } pageInfo { hasNextPage endCursor } }';
const sharesOf = (data: Record<string, unknown>, field: string) => (data[field] as { nodes: Share[] }).nodes;

/**
 * The spec says custodians hold `custodial`; Tidepool (and this API) names it `custodian`. A Map:
 * a body's names are anyone's strings, and `__proto__` looked up in an object is its prototype.
 */
const ALIASES = new Map([['custodial', 'custodian']]);

/** `{"view":{},"note":{}}` → `["view","note"]`; every value must be an empty object. */
export function permissionNames(body: unknown): string[] {
  const set = jsonObject(body, 'Permission set');
  const names = Object.entries(set).map(([name, value]) => {
    const empty =
      value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0;
    if (!empty) throw invalid(`Permission "${name}" must have an empty object {} as its value`, name);
    return ALIASES.get(name) ?? name;
  });
  return PERMISSION_NAME.values(names, 'names');
}

export const permissionRoutes: RestRoute[] = [
  {
    method: 'get',
    path: '/access/groups/:userId',
    doc: {
      tag: 'Permissions',
      summary: 'The accounts that share with this account, and what each lets it do',
      response: PERMISSION_GROUPS,
      tidepool: 'access.v1.yaml#GetGroupsForUser',
    },
    document: `query ($id: ID!, $after: String) { accessibleGroups(userId: $id, ${SHARE_PAGE} }`,
    variables: ({ params }) => ({ id: params.userId }),
    pages: { path: ['accessibleGroups'] },
    respond: (data, _reply, { params }) => groupMap(params.userId, sharesOf(data, 'accessibleGroups')),
    status: 200,
  },
  {
    method: 'get',
    path: '/access/:sharerId',
    doc: {
      tag: 'Permissions',
      summary: 'The accounts this account shares with, and what each may do',
      response: PERMISSION_GROUPS,
      tidepool: 'access.v1.yaml#GetUsersInGroup',
    },
    document: `query ($id: ID!, $after: String) { groupMembers(sharerId: $id, ${SHARE_PAGE} }`,
    variables: ({ params }) => ({ id: params.sharerId }),
    pages: { path: ['groupMembers'] },
    respond: (data, _reply, { params }) => groupMap(params.sharerId, sharesOf(data, 'groupMembers')),
    status: 200,
  },
  {
    method: 'get',
    path: '/access/:sharerId/:userId',
    doc: {
      tag: 'Permissions',
      summary: "What an account may do with the sharer's data",
      response: PERMISSION_SET,
      tidepool: 'access.v1.yaml#GetPermissionsForUser',
    },
    document: 'query ($sharer: ID!, $user: ID!) { permissions(sharerId: $sharer, userId: $user) }',
    variables: ({ params }) => ({ sharer: params.sharerId, user: params.userId }),
    respond: (data, _reply, { params }) => {
      const names = data.permissions as string[] | null;
      if (names === null) throw notFound(`User ${params.userId} has no permissions in the group of ${params.sharerId}`);
      return permissionSet(names);
    },
    status: 200,
  },
  {
    method: 'post',
    path: '/access/:sharerId/:userId',
    doc: {
      tag: 'Permissions',
      summary: "Set what an account may do with the sharer's data ({} removes the grant)",
      body: { schema: PERMISSION_SET, example: { view: {}, note: {} } },
      response: PERMISSION_SET,
      tidepool: 'access.v1.yaml#GrantPermissionsInGroup',
    },
    document: 'mutation ($input: SetPermissionsInput!) { setPermissions(input: $input) { permissions } }',
    variables: ({ params, body }) => ({
      input: { sharerId: params.sharerId, userId: params.userId, permissions: permissionNames(body) },
    }),
    respond: (data) => permissionSet((data.setPermissions as { permissions: string[] }).permissions),
    status: 200,
  },
];
