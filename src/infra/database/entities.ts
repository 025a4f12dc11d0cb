import {
  LoginFailureSchema,
  OidcRecordSchema,
  RealmKeySchema,
  RevokedSessionSchema,
} from '../../auth/oidc/oidc.entity';
import { IdentityLinkSchema } from '../../auth/brokering/identity-link.entity';
import { PermissionGrantSchema } from '../../domains/permissions/permission-grant.entity';
import { UserEmailSchema, UserSchema } from '../../domains/users/user.entity';

/** Every entity the ORM manages, one line per domain. */
export const entities = [
  ...[UserSchema, UserEmailSchema],
  ...[PermissionGrantSchema],
  ...[OidcRecordSchema, RealmKeySchema, RevokedSessionSchema, LoginFailureSchema, IdentityLinkSchema],
];
