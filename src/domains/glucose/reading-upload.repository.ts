import type { EntityManager } from '@mikro-orm/postgresql';
import { sqlOf } from '../../infra/database/sql-runner';
import { arrayLiteral } from '../../kernel/sql';
import type { DatasetRecord } from './dataset.entity';
import type { Deduplication } from './dataset-fields';
import type { GlucoseRecord } from './glucose-record';
import { knownShapeIds, rememberShapes } from './known-shapes';
import { ORIGIN_KEY, readingUuid, type ReadingShape, type ShapedReading } from './reading-shape';
import { OF_USER_AT } from './readings.repository';

/**
 * An upload's statements on the readings (`glucose_readings`) and their shapes
 * (`glucose_reading_shapes`): the shapes first, on their own, then the readings in the upload's
 * transaction, then (under the user's lock) the removal of its copies.
 */

/** An upload's shapes as rows `x` (`n`, their order; `digest`, what identifies one in its dataset). */
const SHAPES_OF_UPLOAD = `x as (
  select n, type, minutes, device_id, fields::jsonb as fields,
         md5(jsonb_build_array(type, minutes, device_id, fields::jsonb)::text)::uuid as digest
    from unnest($3::varchar[], $4::int2[], $5::text[], $6::text[]) with ordinality as x(type, minutes, device_id, fields, n))`;

/**
 * Stores an upload's shapes, each once per dataset, their time span covering the upload's (in
 * whole months, so that most uploads find it covered and write nothing); returns their ids in
 * `shapes`' order, or fewer when the dataset is gone. Run outside the upload's transaction (it
 * commits at once): an update holds the shape's row until its transaction ends, and inside the
 * upload's it would make every upload to the dataset wait for the one before to commit. A span
 * wider than the readings only widens what closing or deleting the dataset reads. The dataset
 * is held `FOR SHARE` meanwhile, so a shape is never added to a dataset being deleted. Shapes
 * this process already knows stored over the upload's span need no statement (known-shapes.ts).
 */
export async function storeShapes(
  em: EntityManager,
  dataset: DatasetRecord,
  shapes: readonly ReadingShape[],
  records: readonly GlucoseRecord[],
): Promise<number[]> {
  const times = records.map((record) => record.time.getTime());
  const [first, last] = [Math.min(...times), Math.max(...times)];
  const known = knownShapeIds(dataset.id, shapes, first, last);
  if (known) return known;
  const params = [
    dataset.userId,
    dataset.id,
    arrayLiteral(shapes.map((shape) => shape.type)),
    plainLiteral(shapes.map((shape) => shape.minutes)),
    arrayLiteral(shapes.map((shape) => shape.deviceId)),
    arrayLiteral(shapes.map((shape) => JSON.stringify(shape.fields))),
    new Date(first).toISOString(),
    new Date(last).toISOString(),
  ];
  const span = `date_trunc('month', $7::timestamptz, 'UTC') as first_time,
                date_trunc('month', $8::timestamptz, 'UTC') + interval '1 month' as last_time`;
  const covered = await sqlOf(em).bound<StoredShape>(
    `with ${SHAPES_OF_UPLOAD}
     select ${STORED_SHAPE} from x join glucose_reading_shapes s on s.dataset_id = $2::varchar and s.digest = x.digest
      where s.user_id = $1::varchar and s.first_time <= $7::timestamptz and s.last_time >= $8::timestamptz order by x.n`,
    params,
  );
  if (covered.rows.length === shapes.length) return remembered(dataset, shapes, covered.rows);
  const { rows } = await sqlOf(em).bound<StoredShape>(
    `with ${SHAPES_OF_UPLOAD},
     stored as (
       insert into glucose_reading_shapes as s (user_id, dataset_id, digest, type, minutes, device_id, fields, first_time, last_time)
       select distinct on (digest) $1::varchar, $2::varchar, digest, type, minutes, device_id, fields, span.*
         from x, (select ${span}) span where exists (select 1 from datasets where id = $2::varchar for share)
       on conflict (dataset_id, digest) do update
          set first_time = least(s.first_time, excluded.first_time), last_time = greatest(s.last_time, excluded.last_time)
       returning id, digest, first_time, last_time)
     select ${STORED_SHAPE} from x join stored s using (digest) order by x.n`,
    params,
  );
  return rows.length === shapes.length ? remembered(dataset, shapes, rows) : rows.map((row) => row.id);
}

/** A stored shape's id and time span (epoch ms), as `s`. */
interface StoredShape {
  id: number;
  first: number;
  last: number;
}
const STORED_SHAPE = `s.id, (extract(epoch from s.first_time) * 1000)::float8 as first,
  (extract(epoch from s.last_time) * 1000)::float8 as last`;

/** The ids of the upload's stored shapes, remembered with their spans (known-shapes.ts). */
function remembered(dataset: DatasetRecord, shapes: readonly ReadingShape[], rows: readonly StoredShape[]): number[] {
  rememberShapes(dataset.id, shapes, rows);
  return rows.map((row) => row.id);
}

/** Under the origin deduplicator a record with the same origin id in the dataset replaces the earlier one. */
const REPLACE_ORIGIN = `
  on conflict (user_id, (extra->>'${ORIGIN_KEY}')) where (extra->>'${ORIGIN_KEY}') is not null
  do update set time = excluded.time, id = excluded.id, value = excluded.value, shape = excluded.shape,
                extra = excluded.extra, created_time = excluded.created_time`;

/**
 * Stores an upload's readings in one statement, each naming its shape (`shapeIds` by shape
 * index); under the origin deduplicator a record replaces the dataset's earlier one with its
 * origin id (the hash deduplicators' copies are removed after, by `dropCopies`). Returns how many
 * rows were written. `own` goes as text and is cast row by row: PostgreSQL reads a `jsonb[]`
 * literal several times slower than the same texts cast one by one (measured: 4 to 8 ms against
 * 1.3 to 2 ms for 1,000 records).
 */
export async function insertReadings(
  tx: EntityManager,
  dataset: DatasetRecord,
  records: readonly GlucoseRecord[],
  readings: readonly ShapedReading[],
  shapeIds: readonly number[],
  { active, mode }: { active: boolean; mode: Deduplication },
): Promise<number> {
  if (!records.length) return 0;
  // What all the rows share is bound once; the rest is one array per column, unnested into rows:
  // a few parameters instead of thousands, bound by the driver rather than inlined into the
  // statement (the runner's `bound`).
  const { affectedRows } = await sqlOf(tx).bound(
    `insert into glucose_readings (user_id, active, created_time, time, id, value, shape, extra)
     select $1::varchar, $2::bool, $3::timestamptz, r.time, r.id, r.value, r.shape, r.own::jsonb
       from unnest($4::timestamptz[], $5::uuid[], $6::float8[], $7::int4[], $8::text[]) as r(time, id, value, shape, own)
     ${mode === 'origin' ? REPLACE_ORIGIN : ''}`,
    [
      dataset.userId,
      active,
      new Date().toISOString(),
      plainLiteral(records.map((record) => record.time.toISOString())),
      plainLiteral(readings.map((reading) => reading.uuid)),
      plainLiteral(records.map((record) => record.value)),
      plainLiteral(readings.map((reading) => shapeIds[reading.shape]!)),
      arrayLiteral(readings.map((reading) => reading.own)),
    ],
  );
  return affectedRows;
}

/**
 * A reading of the user in the span ($2 to $3) that another transaction wrote: without one, the
 * upload holds no copy but its own repeats ($4).
 */
const OTHER_READING_IN_SPAN = `exists (
  select from glucose_readings o
   where ${OF_USER_AT('$1', 'o.user_id')} and o.time >= $2::timestamptz and o.time <= $3::timestamptz
     and o.xmin <> pg_current_xact_id()::xid)`;

/**
 * Removes the upload's copies, as unique keys would have refused them (the readings have none:
 * Migration20261127193000_glucose_readings_user_time_key says why):
 * - a reading at the instant and with the id of another of the user's readings, of any dataset,
 *   active or not (the primary key (user, time, id) refused such an upload before): a record sent
 *   again with its id, or twice in one upload. Two readings of one (time, id) would read back as
 *   one position of the read API's (time, id) order and cursor, and a page could end between them.
 * - under a hash deduplicator, a reading the dataset already held: another reading of the
 *   dataset at the same instant with the same value and type (and, for the device deduplicator,
 *   the same device: the record's, else the dataset's). That is what the hash key holds
 *   (docs/glucose.md).
 * Of one (time, id) the reading kept is one held before the upload, else the upload's first in
 *   the table (`ctid`), never one dropped as a hash copy.
 * Run under the user's lock, after the insert and in its transaction: uploads insert side by
 * side, and the one that takes the lock later sees what the earlier committed and drops its own
 * copies, as a unique index would have kept the first. The upload's readings are the rows its
 * transaction wrote (`xmin`), by their place (`ctid`): a record sent again with its id and time
 * is then told from the reading it repeats. An upload's records have distinct hash keys, so its
 * own readings are never hash copies of each other. The user's readings in the upload's time
 * span are read once, on the index's range, and counted by key (a join or EXISTS between them
 * compared every pair: 300 ms for 1,000 records). An upload whose span holds no reading but its
 * own, and that repeats no sent (time, id), has no copies: that is checked first, by the first
 * reading of another transaction in the span, and the span is then not read at all (most uploads
 * bring new readings; reading and ranking their span was a third of the database's work for
 * them). Returns how many were removed.
 */
export async function dropCopies(
  tx: EntityManager,
  dataset: DatasetRecord,
  mode: Deduplication,
  records: readonly GlucoseRecord[],
): Promise<number> {
  const hashed = mode === 'dataset-hash' || mode === 'device-hash';
  // The ids the service gives records sent without one are 128 random bits: they repeat none the
  // user holds, and an upload of such records alone has no copies but the hash deduplicators'.
  if (!hashed && !records.some((record) => record.fields.id !== undefined)) return 0;
  const times = records.map((record) => record.time.getTime());
  const sentTwice = repeatsSentId(records);
  // Readings of other datasets find no shape in the join, so no type: they share no hash key
  // with the upload's.
  const hash = hashed
    ? {
        columns: `, r.value, s.type, coalesce(s.device_id, $6, '') as device`,
        shapes: 'left join glucose_reading_shapes s on s.id = r.shape and s.dataset_id = $5',
        copy: `uploaded and count(*) over (partition by time, value, type${mode === 'device-hash' ? ', device' : ''}) > 1`,
      }
    : { columns: '', shapes: '', copy: 'false' };
  const { affectedRows } = await sqlOf(tx).bound(
    `with span as materialized (
       select r.ctid, r.xmin = pg_current_xact_id()::xid as uploaded, r.time, r.id${hash.columns}
         from glucose_readings r ${hash.shapes}
        where ${OF_USER_AT('$1', 'r.user_id')} and r.time >= $2::timestamptz and r.time <= $3::timestamptz
          and ($4::bool or ${OTHER_READING_IN_SPAN})),
     copies as (
       select ctid from (
         select ctid, uploaded, copy, row_number() over (partition by time, id order by copy, uploaded, ctid) as nth
           from (select ctid, uploaded, time, id, ${hash.copy} as copy from span) keyed) ranked
        where uploaded and (copy or nth > 1))
     delete from glucose_readings d using copies c
      where ${OF_USER_AT('$1', 'd.user_id')} and d.time >= $2::timestamptz and d.time <= $3::timestamptz and d.ctid = c.ctid`,
    [
      dataset.userId,
      new Date(Math.min(...times)).toISOString(),
      new Date(Math.max(...times)).toISOString(),
      sentTwice,
      ...(hashed ? [dataset.id, mode === 'device-hash' ? (dataset.deviceId ?? null) : null] : []),
    ],
  );
  return affectedRows;
}

/**
 * An array literal of elements that need no quotes: ISO 8601 times, finite numbers and 32 hex
 * digits. Joined as they are, without the per-element checks of `arrayLiteral`, which cost a
 * thousand records' upload a millisecond and its garbage.
 */
const plainLiteral = (values: readonly (string | number)[]) => `{${values.join(',')}}`;

/**
 * Whether two of the records would be stored at the same instant under the same id: their sent
 * ids as stored (`readingUuid`), so a non-hex id and the hex digest it is stored under count as one.
 */
function repeatsSentId(records: readonly GlucoseRecord[]): boolean {
  const seen = new Set<string>();
  for (const record of records) {
    const id = record.fields.id;
    if (id === undefined) continue;
    const key = `${record.time.getTime()}|${readingUuid(id as string)}`;
    if (seen.has(key)) return true;
    seen.add(key);
  }
  return false;
}
