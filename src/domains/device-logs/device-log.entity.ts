import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** One uploaded device log: metadata here, the JSON bytes in the object store under `objectKey`. */
export const DeviceLogSchema = defineEntity({
  name: 'DeviceLog',
  tableName: 'device_logs',
  properties: {
    id: p.string().primary().length(32),
    userId: p.string().length(36),
    digestMD5: p.string().length(24),
    mediaType: p.string().length(255),
    size: p.integer(),
    objectKey: p.string().length(255),
    startAtTime: p.datetime(),
    endAtTime: p.datetime(),
    createdTime: p.datetime(),
    revision: p.integer(),
  },
  indexes: [{ properties: ['userId', 'startAtTime', 'endAtTime'] }],
});

export type DeviceLogRecord = InferEntity<typeof DeviceLogSchema>;
