import { Migration } from '@mikro-orm/migrations';

/** Fields a dataset's records repeat, stored once per shape (SHAPE_FIELDS of src/domains/glucose/reading-shape.ts). */
const SHAPE_FIELDS = `'{sampleInterval,timezone,timezoneOffset,clockDriftOffset,conversionOffset,source,subType,trend,trendRateUnits,backfilled,uploadId}'::text[]`;
const HEX_ID = `'^[0-9a-f]{32}$'`;
const ORIGIN = `'org.tidepool.deduplicator.dataset.delete.origin'`;

/**
 * Readings took about 395 bytes each (table and indexes, `BENCH_ONLY=glucose npm run bench`):
 * every row repeated its dataset's id, device, type, minutes and the fields its device sends on
 * every record (sample interval, time-zone and clock fields ...) as jsonb, carried a 45-character
 * deduplication key, and a second unique index (user, dataset, key) held the key again. Now:
 *
 * - What a dataset's records repeat is a shape (`glucose_reading_shapes`), stored once per
 *   distinct combination in the dataset; a reading names it by number and keeps in `extra` only
 *   its own fields (null when it has none). Merged back (`shape.fields || extra`), the jsonb is
 *   the one stored before: PostgreSQL orders an object's keys itself, so the read API answers
 *   every record text for text (test/e2e/glucose-read-back.test.ts).
 * - Ids are 16 bytes (`uuid`): the service's and uploaders' ids are 32 hex digits, ordered as
 *   before. A sent id with other letters is kept whole in `extra` (`~id`), stored under its MD5.
 * - The hash deduplicators keep no key: the key is a hash of user, dataset (or device), time,
 *   type and value, all of which the reading and its shape hold: after its insert, under the
 *   user's lock, the upload removes its readings the dataset already held (dropCopies,
 *   src/domains/glucose/reading-upload.repository.ts). Only the origin deduplicator keeps one
 *   (`~k` in `extra`: the MD5 of dataset and origin id, unique per user through a partial index
 *   that holds nothing for other readings).
 * - A dataset's readings (closing, deleting) are found through its shapes' time span on the
 *   primary key, not through an index of their own.
 * - A device time that stands at the same whole seconds from the reading's time as others of its
 *   upload is kept as that offset in the shape (`~dt`) and written back from the time; readings
 *   stored before keep theirs among their own fields.
 * - Columns are ordered so that nothing is padded, and there are at most eight, so a row with a
 *   null needs no second byte of null bitmap: 24 bytes of header, 56 of data.
 *
 * Existing readings are converted in place of the old table: shapes from the groups of equal
 * (dataset, type, minutes, device, shared fields), readings with their own part.
 */
export class Migration20261127170000_compact_glucose_readings extends Migration {
  override name = 'Migration20261127170000_compact_glucose_readings';

  override up(): void | Promise<void> {
    this.addSql(`alter table "glucose_readings" drop constraint "glucose_readings_pkey";`);
    this.addSql(`alter table "glucose_readings" drop constraint "glucose_readings_user_id_dataset_id_dedup_key_unique";`);
    this.addSql(`alter table "glucose_readings" rename to "glucose_readings_before";`);
    for (let remainder = 0; remainder < 16; remainder += 1)
      this.addSql(`alter table "glucose_readings_${remainder}" rename to "glucose_readings_before_${remainder}";`);

    this.addSql(`create table "glucose_reading_shapes" ("id" serial primary key, "user_id" varchar(36) not null, "dataset_id" varchar(32) not null, "digest" uuid not null, "type" varchar(4) not null, "minutes" smallint not null, "device_id" text null, "fields" jsonb not null, "first_time" timestamptz not null, "last_time" timestamptz not null);`);
    this.addSql(`alter table "glucose_reading_shapes" add constraint "glucose_reading_shapes_dataset_id_digest_unique" unique ("dataset_id", "digest");`);
    this.addSql(`create index "glucose_reading_shapes_user_id_type_index" on "glucose_reading_shapes" ("user_id", "type");`);

    this.addSql(`create table "glucose_readings" ("time" timestamptz not null, "created_time" timestamptz not null, "value" double precision not null, "id" uuid not null, "shape" int not null, "active" boolean not null, "user_id" varchar(36) not null, "extra" jsonb null, primary key ("user_id", "time", "id")) partition by hash ("user_id");`);
    for (let remainder = 0; remainder < 16; remainder += 1)
      this.addSql(`create table "glucose_readings_${remainder}" partition of "glucose_readings" for values with (modulus 16, remainder ${remainder});`);
    this.addSql(`create unique index "glucose_readings_origin_key_unique" on "glucose_readings" ("user_id", (extra->>'~k')) where (extra->>'~k') is not null;`);

    this.addSql(`
      with split as materialized (
        select r.*, d.deduplicator,
               (select coalesce(jsonb_object_agg(key, value), '{}') from jsonb_each(r.fields) where key = any(${SHAPE_FIELDS})) as shared,
               r.fields - ${SHAPE_FIELDS} as own
          from "glucose_readings_before" r join "datasets" d on d.id = r.dataset_id),
      digested as materialized (
        select split.*, md5(jsonb_build_array(type, minutes, device_id, shared)::text)::uuid as digest from split),
      shapes as (
        insert into "glucose_reading_shapes" (user_id, dataset_id, digest, type, minutes, device_id, fields, first_time, last_time)
        select min(user_id), dataset_id, digest, min(type), min(minutes), min(device_id), min(shared::text)::jsonb, min(time), max(time)
          from digested group by dataset_id, digest
        returning id, dataset_id, digest)
      insert into "glucose_readings" (time, created_time, value, id, shape, active, user_id, extra)
      select r.time, r.created_time, r.value,
             case when r.id ~ ${HEX_ID} then r.id::uuid else md5(r.id)::uuid end,
             s.id, r.active, r.user_id,
             nullif(r.own
                    || case when r.id ~ ${HEX_ID} then '{}' else jsonb_build_object('~id', r.id) end
                    || case when r.deduplicator = ${ORIGIN} and r.dedup_key is not null
                            then jsonb_build_object('~k', encode(decode(md5(r.dataset_id || '|' || r.dedup_key), 'hex'), 'base64'))
                            else '{}' end,
                    '{}')
        from digested r join shapes s on s.dataset_id = r.dataset_id and s.digest = r.digest;`);
    this.addSql(`drop table "glucose_readings_before" cascade;`);
  }

  /**
   * Back to one row per reading with its dataset's columns and deduplication key, recomputed as
   * the upload computed it (the value as PostgreSQL writes a double, which is how JavaScript does
   * for every value from 0.0001 up).
   */
  override down(): void | Promise<void> {
    this.addSql(`alter table "glucose_readings" rename to "glucose_readings_after";`);
    this.addSql(`alter table "glucose_readings_after" drop constraint "glucose_readings_pkey";`);
    this.addSql(`drop index "glucose_readings_origin_key_unique";`);
    for (let remainder = 0; remainder < 16; remainder += 1)
      this.addSql(`alter table "glucose_readings_${remainder}" rename to "glucose_readings_after_${remainder}";`);
    this.addSql(`create table "glucose_readings" ("user_id" varchar(36) not null, "time" timestamptz not null, "id" varchar(32) not null, "dataset_id" varchar(32) not null, "type" varchar(4) not null, "value" double precision not null, "minutes" smallint not null, "active" boolean not null, "dedup_key" varchar(64) null, "device_id" text null, "fields" jsonb not null, "created_time" timestamptz not null, primary key ("user_id", "time", "id")) partition by hash ("user_id");`);
    this.addSql(`alter table "glucose_readings" add constraint "glucose_readings_user_id_dataset_id_dedup_key_unique" unique ("user_id", "dataset_id", "dedup_key");`);
    for (let remainder = 0; remainder < 16; remainder += 1)
      this.addSql(`create table "glucose_readings_${remainder}" partition of "glucose_readings" for values with (modulus 16, remainder ${remainder});`);
    this.addSql(`
      insert into "glucose_readings" (user_id, time, id, dataset_id, type, value, minutes, active, dedup_key, device_id, fields, created_time)
      select r.user_id, r.time, coalesce(r.extra->>'~id', replace(r.id::text, '-', '')), s.dataset_id, s.type, r.value, s.minutes, r.active,
             case d.deduplicator
               when 'org.tidepool.deduplicator.none' then null
               when ${ORIGIN} then coalesce(r.extra, '{}')->'origin'->>'id'
               else encode(sha256(convert_to(concat_ws('|', r.user_id,
                      case when d.deduplicator = 'org.tidepool.deduplicator.dataset.drop.hash' then d.id
                           else coalesce(s.device_id, d.device_id, '') end,
                      to_char(r.time at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), s.type, 'mmol/L', r.value::text), 'UTF8')), 'base64')
             end,
             s.device_id,
             (s.fields - '~dt') || coalesce(r.extra - '{~id,~k}'::text[], '{}')
             || case when s.fields->'~dt' is null then '{}'
                     else jsonb_build_object('deviceTime', to_char((date_trunc('second', r.time, 'UTC')
                            + (s.fields->>'~dt')::int * interval '1 second') at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS'))
                end,
             r.created_time
        from "glucose_readings_after" r
        join "glucose_reading_shapes" s on s.id = r.shape
        join "datasets" d on d.id = s.dataset_id;`);
    this.addSql(`drop table "glucose_readings_after" cascade;`);
    this.addSql(`drop table "glucose_reading_shapes" cascade;`);
  }
}
