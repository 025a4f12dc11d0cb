import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * One access decision on someone else's account. Append-only: ids only (no names, no foreign
 * keys), so an entry outlives the accounts and clinics it names until the retention sweep.
 */
export const AccessLogEntrySchema = defineEntity({
  name: 'AccessLogEntry',
  tableName: 'access_log',
  properties: {
    // The key leads with the account, so one B-tree serves both uniqueness and a user's log pages.
    subjectId: p.string().length(36).primary(),
    id: p.bigint('number').primary().autoincrement(),
    at: p.datetime().defaultRaw('now()'),
    actorUserId: p.string().length(36).nullable(),
    actorIsServer: p.boolean(),
    clientId: p.text().nullable(),
    clinicId: p.string().length(24).nullable(),
    operation: p.text(),
    objectIds: p.array().columnType('text[]'),
    outcome: p.string().length(8),
    requestId: p.text(),
  },
  // Why each exists: migrations/Migration20261124230000_access_log.ts.
  indexes: [
    {
      name: 'access_log_clinic_order',
      expression:
        'create index "access_log_clinic_order" on "access_log" ("clinic_id", "id" desc) where "clinic_id" is not null',
    },
    { name: 'access_log_at_brin', expression: 'create index "access_log_at_brin" on "access_log" using brin ("at")' },
  ],
});

export type AccessLogEntryRecord = InferEntity<typeof AccessLogEntrySchema>;
