import { SessionsResolver } from '../auth/sessions.resolver';
import { PermissionsResolver, UserSharingResolver } from '../domains/permissions/permissions.resolver';
import { UsersResolver } from '../domains/users/users.resolver';
import { BlobsResolver, UserBlobsResolver } from '../domains/blobs/blobs.resolver';
import { DeviceLogsResolver, UserDeviceLogsResolver } from '../domains/device-logs/device-logs.resolver';
import type { Services } from '../services';
import type { ResolverBinding } from './schema';

/** Every resolver of the schema, listed once, with the services it calls. */
export function resolverBindings(services: Services): ResolverBinding[] {
  return [
    [UsersResolver, new UsersResolver(services.users, services.lifecycle)],
    [SessionsResolver, new SessionsResolver(services.sessions)],
    [PermissionsResolver, new PermissionsResolver(services.permissions, services.users)],
    [UserSharingResolver, new UserSharingResolver(services.permissions)],
    [BlobsResolver, new BlobsResolver(services.blobs)],
    [UserBlobsResolver, new UserBlobsResolver(services.blobs)],
    [DeviceLogsResolver, new DeviceLogsResolver(services.deviceLogs)],
    [UserDeviceLogsResolver, new UserDeviceLogsResolver(services.deviceLogs)],
  ];
}

/** The schema's shape alone (no services behind it), for emitting and checking schema.graphql. */
export function sdlBindings(): ResolverBinding[] {
  return resolverBindings({} as Services);
}
