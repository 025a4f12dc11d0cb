import { invalid, notFound } from '../../src/kernel/errors';
import { jsonObject } from '../body';
import type { RestRoute } from '../route';

type Share = { userid: string; permissions: string[] };

/** `["view","note"]` → `{"view":{},"note":{}}`: permission values on the wire are empty objects. */
export type PermissionSet = Record<string, Record<string, never>>;

export function permissionSet(names: readonly string[]): PermissionSet {
  return Object.fromEntries(names.map((name) => [name, {}]));
}

/** A permission group as Tidepool answers it: user id → permission set. */
function groupMap(shares: Share[]): Record<string, PermissionSet> {
  return Object.fromEntries(shares.map((share) => [share.userid, permissionSet(share.permissions)]));
}

/** The spec says custodians hold `custodial`; Tidepool (and this API) names it `custodian`. */
const ALIASES: Record<string, string> = { custodial: 'custodian' };

/** `{"view":{},"note":{}}` → `["view","note"]`; every value must be an empty object. */
function permissionNames(body: unknown): string[] {
  const set = jsonObject(body, 'Permission set');
  return Object.entries(set).map(([name, value]) => {
    const empty =
      value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0;
    if (!empty) throw invalid(`Permission "${name}" must have an empty object {} as its value`, name);
    return ALIASES[name] ?? name;
  });
}

export const permissionRoutes: RestRoute[] = [
  {
    method: 'get',
    path: '/access/groups/:userId',
    document: 'query ($id: ID!) { accessibleGroups(userId: $id) { userid permissions } }',
    variables: ({ params }) => ({ id: params.userId }),
    respond: (data) => groupMap(data.accessibleGroups as Share[]),
    status: 200,
  },
  {
    method: 'get',
    path: '/access/:sharerId',
    document: 'query ($id: ID!) { groupMembers(sharerId: $id) { userid permissions } }',
    variables: ({ params }) => ({ id: params.sharerId }),
    respond: (data) => groupMap(data.groupMembers as Share[]),
    status: 200,
  },
  {
    method: 'get',
    path: '/access/:sharerId/:userId',
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
    document:
      'mutation ($sharer: ID!, $user: ID!, $names: [PermissionName!]!) { setPermissions(sharerId: $sharer, userId: $user, permissions: $names) }',
    variables: ({ params, body }) => ({ sharer: params.sharerId, user: params.userId, names: permissionNames(body) }),
    respond: (data) => permissionSet(data.setPermissions as string[]),
    status: 200,
  },
];
