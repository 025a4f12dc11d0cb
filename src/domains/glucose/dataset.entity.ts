import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * An upload session (Tidepool's dataset, `type: "upload"`). Records of a `normal` dataset stay
 * inactive until it is closed; a `continuous` dataset's records are active at once.
 */
export const DatasetSchema = defineEntity({
  name: 'Dataset',
  tableName: 'datasets',
  properties: {
    id: p.string().primary().length(32),
    userId: p.string().length(36),
    dataSetType: p.string().length(16),
    /** `open` or `closed`. */
    state: p.string().length(8),
    deduplicator: p.string().length(64),
    deviceId: p.text().nullable(),
    /** The uploader's other dataset fields (client, device, time zone ...), answered back as sent. */
    details: p.json<Record<string, unknown>>(),
    createdUserId: p.string().length(36).nullable(),
    createdTime: p.datetime(),
    modifiedTime: p.datetime().nullable(),
  },
  indexes: [{ properties: ['userId', 'createdTime'] }],
});

export type DatasetRecord = InferEntity<typeof DatasetSchema>;
