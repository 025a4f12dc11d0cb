import { defineEntity, p } from '@mikro-orm/core';

/**
 * What one request did to other accounts, of one kind (operation, outcome, clinic): the accounts
 * in `subjectIds`, and at the same position of `objectIds` the text of the array of object ids of
 * that account. Append-only: ids only (no names, no foreign keys), so a record outlives the
 * accounts and clinics it names until the retention sweep.
 */
export const AccessLogRecordSchema = defineEntity({
  name: 'AccessLogRecord',
  tableName: 'access_log_records',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    at: p.datetime().defaultRaw('now()'),
    actorUserId: p.string().length(36).nullable(),
    actorIsServer: p.boolean(),
    clientId: p.text().nullable(),
    clinicId: p.string().length(24).nullable(),
    operation: p.text(),
    outcome: p.string().length(8),
    requestId: p.text(),
    subjectIds: p.array().columnType('text[]'),
    objectIds: p.array().columnType('text[]'),
  },
  // Why each exists: migrations/Migration20261125080000_access_log_records.ts.
  indexes: [
    {
      name: 'access_log_records_clinic_order',
      expression:
        'create index "access_log_records_clinic_order" on "access_log_records" ("clinic_id", "id" desc) where "clinic_id" is not null',
    },
    {
      name: 'access_log_records_at_brin',
      expression: 'create index "access_log_records_at_brin" on "access_log_records" using brin ("at")',
    },
  ],
});

/**
 * One account a record reached: the key of the account's log. `id` is the record's id × 4096
 * plus the account's position in it (ENTRY_SLOTS in access-log.writer.ts).
 */
export const AccessLogEntrySchema = defineEntity({
  name: 'AccessLogEntry',
  tableName: 'access_log_entries',
  properties: {
    // The key leads with the account, so one B-tree serves both uniqueness and a user's log pages.
    subjectId: p.string().length(36).primary(),
    id: p.bigint('number').primary(),
  },
  indexes: [
    {
      name: 'access_log_entries_id_brin',
      expression: 'create index "access_log_entries_id_brin" on "access_log_entries" using brin ("id")',
    },
  ],
});
