import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database';
import { entities } from '../../entities';
import { openDatabase, schemaDrift, type Orm } from '../../infra/database/orm';
import { ENTRY_SLOTS } from './access-log.writer';

/**
 * Migration20261125080000_access_log_records moves the one-row-per-entry access log into records
 * and their entries: no entry may be lost or changed, and the order of a log must stay.
 */
const BEFORE = 'Migration20261124230000_access_log';

let database: TestDatabase;
let orm: Orm;

beforeAll(async () => {
  database = await createTestDatabase({ empty: true });
  orm = await openDatabase(database.url, entities, 2);
  await orm.migrator.up({ to: BEFORE });
});

afterAll(async () => {
  await orm?.close();
  await database?.release();
});

/** The old table's columns, in the order the checks read them. */
const COLUMNS =
  'subject_id, actor_user_id, actor_is_server, client_id, clinic_id, operation, object_ids, outcome, request_id';

const OLD_ROWS = `
  ('patient001', 'clinician1', false, 'web', '0123456789abcdef01234567', 'clinicPatients', '{}', 'ALLOWED', 'r1'),
  ('patient002', null, true, null, null, 'blobs', '{"a,b","{\\"c\\"}","NULL"}', 'ALLOWED', 'r2'),
  ('patient001', 'stranger01', false, 'app', null, 'GET /v1/users/:userId', '{}', 'REFUSED', 'r3')`;

describe('moving the access log into records and entries', () => {
  it('keeps every entry with every column, in the same order, and numbers new entries after them', async () => {
    await database.query(`insert into access_log (${COLUMNS}) values ${OLD_ROWS}`);
    const before = await database.query(`select id::text, at, ${COLUMNS} from access_log order by access_log.id`);

    await orm.migrator.up();
    expect(await schemaDrift(orm)).toBe('');

    const after = await database.query(
      `select (e.id / ${ENTRY_SLOTS})::text as id, r.at, e.subject_id, r.actor_user_id, r.actor_is_server, r.client_id,
              r.clinic_id, r.operation, r.object_ids[e.id % ${ENTRY_SLOTS} + 1]::text[] as object_ids, r.outcome, r.request_id
         from access_log_entries e join access_log_records r on r.id = e.id / ${ENTRY_SLOTS} order by e.id`,
    );
    expect(after).toEqual(before);
    expect(before[1]!.object_ids).toEqual(['a,b', '{"c"}', 'NULL']);

    const [next] = await database.query(
      `insert into access_log_records (actor_is_server, operation, outcome, request_id, subject_ids, object_ids)
       values (true, 'user', 'ALLOWED', 'r4', '{patient001}', '{"{}"}') returning id::text`,
    );
    expect(BigInt(next!.id as string)).toBeGreaterThan(BigInt(before.at(-1)!.id as string));
  });

  it('goes back to one row per entry', async () => {
    const entries = await database.query(
      `select e.id::text, e.subject_id, r.request_id from access_log_entries e
         join access_log_records r on r.id = e.id / ${ENTRY_SLOTS} order by e.id`,
    );
    await orm.migrator.down({ to: BEFORE });
    expect(
      await database.query('select id::text, subject_id, request_id from access_log order by access_log.id'),
    ).toEqual(entries);
  });
});
