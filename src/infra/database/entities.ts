import {
  LoginFailureSchema,
  OidcRecordSchema,
  RealmKeySchema,
  RevokedSessionSchema,
} from '../../auth/oidc/oidc.entity';
import { IdentityLinkSchema } from '../../auth/brokering/identity-link.entity';
import { PermissionGrantSchema } from '../../domains/permissions/permission-grant.entity';
import { UserEmailSchema, UserSchema } from '../../domains/users/user.entity';
import { BlobSchema } from '../../domains/blobs/blob.entity';
import { DeviceLogSchema } from '../../domains/device-logs/device-log.entity';
import { PendingObjectSchema } from '../content/pending-object.entity';

/** Every entity the ORM manages, one line per domain. */
export const entities = [
  ...[UserSchema, UserEmailSchema],
  ...[PermissionGrantSchema],
  ...[BlobSchema, DeviceLogSchema, PendingObjectSchema],
  ...[OidcRecordSchema, RealmKeySchema, RevokedSessionSchema, LoginFailureSchema, IdentityLinkSchema],
];
