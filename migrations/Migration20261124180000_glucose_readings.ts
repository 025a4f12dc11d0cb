import { Migration } from '@mikro-orm/migrations';

/**
 * Upload sessions and glucose readings, laid out for years of 5-minute readings of 100,000 users
 * (about 10 billion rows a year):
 * - Readings are keyed (user_id, time, id): every read is one user's readings over a time range
 *   (the read API, summaries from the newest hours back), so it is one contiguous range of the
 *   primary key, and a user's readings sit together in it.
 * - The table is hash-partitioned by user into 16: each partition's indexes stay a sixteenth of
 *   the size (shallower B-trees, smaller working set), autovacuum works partition by partition,
 *   and every query names its user, so the planner touches exactly one partition.
 * - No BRIN index: BRIN pays when rows are stored in the order of the indexed column and queries
 *   span many rows of that order; here rows of many users interleave in time and every query
 *   is per user, which the primary key already serves.
 * - (user_id, dataset_id, dedup_key) is unique: the deduplicators' "once per dataset" rule holds
 *   in the database itself (NULL keys, for records kept whatever they are, never collide), and
 *   its (user_id, dataset_id) prefix finds a dataset's records when it closes or is deleted.
 */
export class Migration20261124180000_glucose_readings extends Migration {

  override name = 'Migration20261124180000_glucose_readings';

  override up(): void | Promise<void> {
    this.addSql(`create table "datasets" ("id" varchar(32) not null, "user_id" varchar(36) not null, "data_set_type" varchar(16) not null, "state" varchar(8) not null, "deduplicator" varchar(64) not null, "device_id" text null, "details" jsonb not null, "created_user_id" varchar(36) null, "created_time" timestamptz not null, "modified_time" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "datasets_user_id_created_time_index" on "datasets" ("user_id", "created_time");`);

    this.addSql(`create table "glucose_readings" ("user_id" varchar(36) not null, "time" timestamptz not null, "id" varchar(32) not null, "dataset_id" varchar(32) not null, "type" varchar(4) not null, "value" double precision not null, "minutes" smallint not null, "active" boolean not null, "dedup_key" varchar(64) null, "device_id" text null, "fields" jsonb not null, "created_time" timestamptz not null, primary key ("user_id", "time", "id")) partition by hash ("user_id");`);
    this.addSql(`alter table "glucose_readings" add constraint "glucose_readings_user_id_dataset_id_dedup_key_unique" unique ("user_id", "dataset_id", "dedup_key");`);
    for (let remainder = 0; remainder < 16; remainder += 1)
      this.addSql(`create table "glucose_readings_${remainder}" partition of "glucose_readings" for values with (modulus 16, remainder ${remainder});`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "glucose_readings" cascade;`);
    this.addSql(`drop table if exists "datasets" cascade;`);
  }

}
