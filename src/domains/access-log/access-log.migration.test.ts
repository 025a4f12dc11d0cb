import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database';
import { entities } from '../../entities';
import { openDatabase, schemaDrift, type Orm } from '../../infra/database/orm';
import { ENTRY_SLOTS } from './access-log.writer';

/**
 * Migration20261125080000_access_log_records moves the one-row-per-entry access log into records
 * and their entries, and Migration20261125120000_access_log_hours replaces the entries with the
 * records' hour keys: no entry may be lost or changed, and the order of a log must stay.
 */
const BEFORE = 'Migration20261124230000_access_log';
const RECORDS = 'Migration20261125080000_access_log_records';

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

    await orm.migrator.up({ to: RECORDS });

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

  it('finds every entry of every user through the hour keys, and notes each user’s hours', async () => {
    await database.query(
      `insert into access_log_records (at, actor_is_server, operation, outcome, request_id, subject_ids, object_ids)
       values ('2026-01-31 09:59:59.999+00', true, 'users', 'ALLOWED', 'r5', '{patient001,patient003,patient001}', '{"{}","{}","{x}"}'),
              ('2026-01-31 10:00:00+00', true, 'users', 'ALLOWED', 'r6', '{patient003}', '{"{}"}')`,
    );
    await database.query(
      `insert into access_log_entries (subject_id, id)
       select s.subject_id, r.id * ${ENTRY_SLOTS} + s.position - 1
         from access_log_records r, unnest(r.subject_ids) with ordinality as s(subject_id, position)
        where r.request_id in ('r4', 'r5', 'r6')`,
    );
    const entries = `select e.subject_id, e.id::text from access_log_entries e order by e.subject_id, e.id`;
    const before = await database.query(entries);

    await orm.migrator.up();
    expect(await schemaDrift(orm)).toBe('');
    const keyed = await database.query(
      `select s.subject_id, (r.id * ${ENTRY_SLOTS} + s.position - 1)::text as id
         from access_log_hours h
         join access_log_records r on access_log_hour_keys(r.subject_ids, r.at) @> array[h.subject_id || '/' || h.hour]
         cross join unnest(r.subject_ids) with ordinality as s(subject_id, position)
        where s.subject_id = h.subject_id order by s.subject_id, r.id, s.position`,
    );
    expect(keyed).toEqual(before);
    const nine = Date.UTC(2026, 0, 31, 9) / 3_600_000;
    const hours = await database.query(
      'select subject_id, hour - $1 as hour, allowed from access_log_hours where hour between $1 and $1 + 1 order by subject_id, hour',
      [nine],
    );
    expect(hours.map((row) => `${row.subject_id}:${row.hour}:${row.allowed}`)).toEqual([
      'patient001:0:null',
      'patient003:0:null',
      'patient003:1:null',
    ]);

    await orm.migrator.down({ to: RECORDS });
    expect(await database.query(entries)).toEqual(before);
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
