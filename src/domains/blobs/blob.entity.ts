import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** Blob metadata; the bytes live in the object store under `objectKey` once there are any. */
export const BlobSchema = defineEntity({
  name: 'Blob',
  tableName: 'blobs',
  properties: {
    id: p.string().primary().length(32),
    userId: p.string().length(36),
    mediaType: p.string().length(255),
    status: p.string().length(16),
    digestMD5: p.string().length(24).nullable(),
    size: p.integer().nullable(),
    objectKey: p.string().length(255).nullable(),
    revision: p.integer(),
    createdTime: p.datetime(),
    modifiedTime: p.datetime().nullable(),
  },
  indexes: [{ properties: ['userId', 'createdTime'] }],
});

export type BlobRecord = InferEntity<typeof BlobSchema>;
export type BlobStatus = 'created' | 'available';
export const BLOB_STATUSES: readonly BlobStatus[] = ['created', 'available'];
