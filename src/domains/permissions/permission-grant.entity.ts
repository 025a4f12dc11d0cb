import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * What a sharer lets one other user do with the sharer's data. One row per (sharer, grantee);
 * an empty set is never stored (removing every permission deletes the row).
 */
export const PermissionGrantSchema = defineEntity({
  name: 'PermissionGrant',
  tableName: 'permission_grants',
  properties: {
    sharerId: p.string().primary().length(10),
    granteeId: p.string().primary().length(10).index(),
    permissions: p.array().columnType('text[]'),
    createdTime: p.datetime(),
    modifiedTime: p.datetime(),
  },
});

export type PermissionGrant = InferEntity<typeof PermissionGrantSchema>;
