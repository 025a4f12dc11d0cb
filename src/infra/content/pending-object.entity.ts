import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * An object (or, with `isPrefix`, every object under a prefix) that may exist in the object
 * store without committed metadata: written but not yet recorded, or unrecorded but not yet
 * removed. A row lives only while that is true; the sweeper finishes what an expired one began.
 */
export const PendingObjectSchema = defineEntity({
  name: 'PendingObject',
  tableName: 'pending_objects',
  properties: {
    key: p.string().primary().length(255),
    isPrefix: p.boolean().default(false),
    leaseUntil: p.datetime().index(),
  },
});

export type PendingObject = InferEntity<typeof PendingObjectSchema>;
