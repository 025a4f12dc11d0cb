import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database';
import { entities } from '../../entities';
import { openDatabase, schemaDrift, type Orm } from '../../infra/database/orm';
import { DEDUPLICATORS, type Deduplication, type DeduplicatorName } from './dataset-fields';
import { deduplicationKey } from './deduplication';
import { parseGlucoseRecord, type GlucoseRecord } from './glucose-record';
import { hexIds } from '../../kernel/ids';
import { dropCopies, insertReadings, storeShapes } from './reading-upload.repository';
import { shapeReadings } from './reading-shape';

/**
 * Migration20261127170000_compact_glucose_readings splits every stored reading into its shape and
 * its own part: read back, each must be the row it was, the deduplicators must treat the old
 * readings as before, and going down must give back the old rows, deduplication keys included.
 */
const BEFORE = 'Migration20261127150000_tide_category_indexes';
const USER = 'u000000001';

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

const DATASETS: [id: string, deduplicator: DeduplicatorName, deviceId: string | null][] = [
  ['d0000000000000000000000000000000', 'org.tidepool.deduplicator.none', null],
  ['d1000000000000000000000000000000', 'org.tidepool.deduplicator.dataset.drop.hash', 'DexG6-1'],
  ['d2000000000000000000000000000000', 'org.tidepool.deduplicator.device.deactivate.hash', 'DexG6-1'],
  ['d3000000000000000000000000000000', 'org.tidepool.deduplicator.dataset.delete.origin', null],
];

const RECORDS: Record<string, unknown>[] = [
  {
    type: 'cbg',
    time: '2024-03-01T00:00:00Z',
    value: 140,
    units: 'mg/dL',
    sampleInterval: 300000,
    deviceId: 'DexG6-1',
  },
  {
    type: 'cbg',
    time: '2024-03-01T00:05:00.250Z',
    value: 5.5,
    units: 'mmol/L',
    timezoneOffset: 60,
    deviceTime: '2024-03-01T01:05:00',
    trend: 'constant',
    trendRate: 0.1,
    trendRateUnits: 'mmol/L/minute',
    origin: { id: 'egv-7', name: 'com.dexcom' },
    payload: { b: [1, 2.5], a: 'ü' },
  },
  { type: 'smbg', time: '2024-03-01T07:00:00Z', value: 0.0001, units: 'mmol/L', subType: 'manual' },
  { type: 'smbg', time: '2024-03-01T07:00:00Z', value: 99, units: 'mg/dL' },
];

/** Each dataset's ids: the third record's was sent, and is not hex. */
const idOf = (datasetId: string, index: number) =>
  index === 2
    ? `z${datasetId.slice(0, 2)}${'y'.repeat(29)}`
    : `${datasetId.slice(0, 2)}${String(index).padStart(30, '0')}`;

const OLD_COLUMNS =
  'user_id, time, id, dataset_id, type, value, minutes, active, dedup_key, device_id, fields, created_time';
const OLD_READINGS = `select ${OLD_COLUMNS.replace('fields', 'fields::text')} from glucose_readings order by user_id, time, id`;

let before: Record<string, unknown>[];

/**
 * The key the old layout stored per reading (its unique key): Tidepool's hash of user, upload or
 * device, time, type, units and value, as the migration's down() computes it again.
 */
function oldLayoutKey(record: GlucoseRecord, datasetId: string, deviceId: string | null, mode: Deduplication) {
  if (mode === 'none') return null;
  if (mode === 'origin') return record.originId;
  const source = mode === 'dataset-hash' ? datasetId : (record.deviceId ?? deviceId ?? '');
  const parts = [USER, source, record.time.toISOString(), record.type, 'mmol/L', record.value];
  return createHash('sha256').update(parts.join('|')).digest('base64');
}

/** The readings of every dataset, as the upload of the time stored them. */
async function oldRows(): Promise<void> {
  for (const [datasetId, deduplicator, deviceId] of DATASETS) {
    await database.query(
      `insert into datasets (id, user_id, data_set_type, state, deduplicator, device_id, details, created_user_id, created_time)
       values ($1, $2, 'normal', 'closed', $3, $4, '{}', $2, now())`,
      [datasetId, USER, deduplicator, deviceId],
    );
    for (const [index, input] of RECORDS.entries()) {
      const record = parseGlucoseRecord({ ...input, id: index === 2 ? idOf(datasetId, index) : undefined }, index);
      const { id: _id, deviceId: _deviceId, ...fields } = record.fields;
      const key = oldLayoutKey(record, datasetId, deviceId, DEDUPLICATORS[deduplicator]);
      await database.query(
        `insert into glucose_readings (${OLD_COLUMNS}) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, now())`,
        [
          ...[USER, record.time, idOf(datasetId, index), datasetId, record.type, record.value, record.minutes],
          ...[index !== 1, key, record.deviceId, JSON.stringify(fields)],
        ],
      );
    }
  }
  before = await database.query(OLD_READINGS);
}

describe('storing readings compactly', () => {
  it('reads every reading back as it was stored', async () => {
    await oldRows();
    await orm.migrator.up();
    expect(await schemaDrift(orm)).toBe('');
    const after = await database.query(
      `select r.user_id, r.time, coalesce(r.extra->>'~id', replace(r.id::text, '-', '')) as id, s.dataset_id, s.type,
              r.value, s.minutes, r.active, s.device_id,
              (s.fields || coalesce(r.extra - '{~id,~k}'::text[], '{}'))::text as fields, r.created_time
         from glucose_readings r join glucose_reading_shapes s on s.id = r.shape order by r.user_id, r.time, 3`,
    );
    expect(after).toEqual(before.map(({ dedup_key: _key, ...row }) => row));
    const [{ shapes }] = (await database.query('select count(*)::int as shapes from glucose_reading_shapes')) as [
      { shapes: number },
    ];
    expect(shapes).toBe(DATASETS.length * RECORDS.length);
  });

  it('goes back to one row per reading, deduplication keys included', async () => {
    await orm.migrator.down({ to: BEFORE });
    expect(await database.query(OLD_READINGS)).toEqual(before);
  });

  it('deduplicates new uploads against the converted readings as before', async () => {
    await orm.migrator.up();
    const em = orm.em.fork();
    const stored: number[] = [];
    // The same records again, the second with another value: hash datasets drop all but that one,
    // the origin dataset replaces it (and keeps the records without an origin id), the dataset
    // without a deduplicator keeps them all.
    for (const [datasetId, deduplicator, deviceId] of DATASETS) {
      const mode = DEDUPLICATORS[deduplicator];
      const records = RECORDS.map((input, index) =>
        parseGlucoseRecord(index === 1 ? { ...input, value: 6.5 } : input, index),
      );
      const keys = records.map((record) => deduplicationKey(record, { datasetId, deviceId }, mode));
      const { shapes, readings } = shapeReadings(records, hexIds(4, 32), mode === 'origin' ? keys : [], datasetId);
      const dataset = { id: datasetId, userId: USER, deviceId } as never;
      const shapeIds = await storeShapes(em, dataset, shapes, records);
      stored.push(
        await em.transactional(
          async (tx) =>
            (await insertReadings(tx, dataset, records, readings, shapeIds, { active: true, mode })) -
            (await dropCopies(tx, dataset, mode, records)),
        ),
      );
    }
    expect(stored).toEqual([4, 1, 1, 4]);
    const counts = await database.query(
      `select s.dataset_id, count(*)::int as readings, array_agg(r.value order by r.value) as values
         from glucose_readings r join glucose_reading_shapes s on s.id = r.shape group by s.dataset_id order by 1`,
    );
    expect(counts.map((row) => [row.dataset_id.slice(0, 2), row.readings, row.values.includes(6.5)])).toEqual([
      ['d0', 8, true],
      ['d1', 5, true],
      ['d2', 5, true],
      ['d3', 7, true],
    ]);
    expect(counts[3]!.values).not.toContain(5.5);
  });
});
