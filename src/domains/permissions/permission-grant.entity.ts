import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * What a sharer lets one other user do with the sharer's data. One row per (sharer, grantee);
 * an empty set is never stored (removing every permission deletes the row). `clinicId`: the
 * clinic whose access the granting caller used (null when the sharer, its own custodian or a
 * server made it); such a grant lasts only while the clinic backs it (PermissionsService.endClinicGrants).
 */
export const PermissionGrantSchema = defineEntity({
  name: 'PermissionGrant',
  tableName: 'permission_grants',
  properties: {
    sharerId: p.string().primary().length(10),
    granteeId: p.string().primary().length(10).index(),
    permissions: p.array().columnType('text[]'),
    clinicId: p.string().length(24).nullable().index(),
    /** The account that made the grant; null for a server. */
    grantedBy: p.string().length(10).nullable(),
    createdTime: p.datetime(),
    modifiedTime: p.datetime(),
  },
});

export type PermissionGrant = InferEntity<typeof PermissionGrantSchema>;
