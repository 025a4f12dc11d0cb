import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database';
import { entities } from '../../entities';
import { openDatabase, schemaDrift, type Orm } from '../../infra/database/orm';
import { DEDUPLICATORS, type DeduplicatorName } from './dataset-fields';
import { parseGlucoseRecord } from './glucose-record';
import { dropCopies, insertReadings, storeShapes } from './reading-upload.repository';
import { shapeReadings } from './reading-shape';

/**
 * Migration20261127193000_glucose_readings_user_time_key drops the readings' primary key (user,
 * time, id) for an index of (hash of the user id, time): a record sent again with its id and time
 * is then dropped by the upload as a copy (dropCopies), whatever its dataset's deduplicator;
 * going down keeps one row of each (user, time, id), should the table hold two, and the primary
 * key again.
 */
const BEFORE = 'Migration20261127173000_summary_clinic_copy';
const USER = 'u000000002';
const SENT_ID = 'abcdef0123456789abcdef0123456789';

let database: TestDatabase;
let orm: Orm;

beforeAll(async () => {
  database = await createTestDatabase({ empty: true });
  orm = await openDatabase(database.url, entities, 2);
  await orm.migrator.up();
});

afterAll(async () => {
  await orm?.close();
  await database?.release();
});

const DATASETS: [id: string, deduplicator: DeduplicatorName, time: string][] = [
  ['e0000000000000000000000000000000', 'org.tidepool.deduplicator.none', '2024-05-01T00:00:00Z'],
  ['e1000000000000000000000000000000', 'org.tidepool.deduplicator.dataset.drop.hash', '2024-05-01T00:05:00Z'],
];

/** Uploads the same record, with its id, to the dataset, as the upload does; returns how many readings it kept. */
async function uploadAgain([datasetId, deduplicator, time]: (typeof DATASETS)[number]): Promise<number> {
  const mode = DEDUPLICATORS[deduplicator];
  const records = [parseGlucoseRecord({ type: 'cbg', time, value: 120, units: 'mg/dL', id: SENT_ID }, 0)];
  const { shapes, readings } = shapeReadings(records, [SENT_ID], [null], datasetId);
  const dataset = { id: datasetId, userId: USER, deviceId: null } as never;
  const em = orm.em.fork();
  const shapeIds = await storeShapes(em, dataset, shapes, records);
  return em.transactional(
    async (tx) =>
      (await insertReadings(tx, dataset, records, readings, shapeIds, { active: true, mode })) -
      (await dropCopies(tx, dataset, mode, records)),
  );
}

const readingsOf = async (datasetId: string) =>
  (
    (await database.query(
      `select count(*)::int as readings from glucose_readings r join glucose_reading_shapes s on s.id = r.shape
        where s.dataset_id = $1`,
      [datasetId],
    )) as [{ readings: number }]
  )[0].readings;

describe('the readings keyed by a hash of the user and the time', () => {
  it('has no primary key, its index and the entities agree', async () => {
    expect(await schemaDrift(orm)).toBe('');
    const constraints = await database.query(
      `select conname from pg_constraint where conrelid = 'glucose_readings'::regclass and contype = 'p'`,
    );
    expect(constraints).toEqual([]);
    const [index] = (await database.query(
      `select pg_get_indexdef('glucose_readings_user_time_index'::regclass) as definition`,
    )) as [{ definition: string }];
    expect(index.definition).toContain('(hashtextextended((user_id)::text, (0)::bigint), "time")');
  });

  it('drops a record sent again with its id, whatever its dataset deduplicates on', async () => {
    for (const [datasetId, deduplicator] of DATASETS)
      await database.query(
        `insert into datasets (id, user_id, data_set_type, state, deduplicator, details, created_user_id, created_time)
         values ($1, $2, 'normal', 'open', $3, '{}', $2, now())`,
        [datasetId, USER, deduplicator],
      );
    // Each dataset's second upload is a copy: of the first without a deduplicator, by its hash key with one.
    expect([await uploadAgain(DATASETS[0]), await uploadAgain(DATASETS[0])]).toEqual([1, 0]);
    expect([await uploadAgain(DATASETS[1]), await uploadAgain(DATASETS[1])]).toEqual([1, 0]);
    expect([await readingsOf(DATASETS[0][0]), await readingsOf(DATASETS[1][0])]).toEqual([1, 1]);
  });

  it('goes back to the primary key, one row of each (user, time, id) kept', async () => {
    // A copy stored before uploads dropped them (or written by hand).
    await database.query(
      `insert into glucose_readings select * from glucose_readings r
        where r.user_id = $1 and r.shape in (select id from glucose_reading_shapes where dataset_id = $2)`,
      [USER, DATASETS[0][0]],
    );
    expect(await readingsOf(DATASETS[0][0])).toBe(2);
    await orm.migrator.down({ to: BEFORE });
    expect([await readingsOf(DATASETS[0][0]), await readingsOf(DATASETS[1][0])]).toEqual([1, 1]);
    expect(
      await database.query(
        `select pg_get_constraintdef(oid) as definition from pg_constraint
          where conrelid = 'glucose_readings'::regclass and contype = 'p'`,
      ),
    ).toEqual([{ definition: 'PRIMARY KEY (user_id, "time", id)' }]);
  });
});
