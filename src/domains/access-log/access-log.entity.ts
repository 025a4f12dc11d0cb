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
  // Why each exists: migrations/Migration20261125080000_access_log_records.ts and
  // Migration20261125120000_access_log_hours.ts.
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
    {
      name: 'access_log_records_hour_keys',
      expression:
        'create index "access_log_records_hour_keys" on "access_log_records" using gin (access_log_hour_keys("subject_ids", "at"))',
    },
  ],
});

/**
 * The hours (counted from 1970-01-01T00:00Z) in which a record reached an account: where the
 * pages of a user's log look, newest first, before reading that hour's records through
 * `access_log_records_hour_keys`. `allowed` and `refused` count the account's entries of the
 * hour, filled in once the hour is over and a count asks (access-log.user-log.repository.ts).
 */
export const AccessLogHourSchema = defineEntity({
  name: 'AccessLogHour',
  tableName: 'access_log_hours',
  properties: {
    subjectId: p.string().length(36).primary(),
    hour: p.integer().primary(),
    allowed: p.integer().nullable(),
    refused: p.integer().nullable(),
  },
});
