import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * An object that may exist in the object store without committed metadata: written but not yet
 * recorded, or unrecorded but not yet removed. A row lives only while that is true; once its
 * lease has passed, the sweeper removes the bytes. `leaseUntil` is also the row's version:
 * whoever changes it owns the row, and the others' conditional deletes miss.
 */
export const PendingObjectSchema = defineEntity({
  name: 'PendingObject',
  tableName: 'pending_objects',
  properties: {
    key: p.string().primary().length(255),
    leaseUntil: p.datetime().index(),
  },
});

export type PendingObject = InferEntity<typeof PendingObjectSchema>;
