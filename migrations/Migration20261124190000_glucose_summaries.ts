import { Migration } from '@mikro-orm/migrations';

/**
 * Glucose summaries and the hourly buckets behind them (tidepool-semantics B.4–B.10):
 * - A summary row per user and kind (`cgm`, `bgm`) holds the dates and every period as JSON: it
 *   is read whole, by user, so one row answers it.
 * - Buckets keep 60 days of hours per user and kind (at most 1,440 rows): an upload rebuilds
 *   only the hours from its earliest reading on, never the user's history. Keyed by (user, kind,
 *   hour), so "this user's buckets from that hour" is one index range; hash-partitioned by user
 *   like the readings, for the same reasons (100,000 users make about 290 million rows).
 * - `outdated_since` is indexed: the updaters of every instance take the oldest outdated
 *   summaries first, and only those rows carry a value.
 */
export class Migration20261124190000_glucose_summaries extends Migration {

  override name = 'Migration20261124190000_glucose_summaries';

  override up(): void | Promise<void> {
    this.addSql(`create table "glucose_buckets" ("user_id" varchar(36) not null, "kind" varchar(3) not null, "hour" timestamptz not null, "state" jsonb not null, primary key ("user_id", "kind", "hour")) partition by hash ("user_id");`);
    for (let remainder = 0; remainder < 16; remainder += 1)
      this.addSql(`create table "glucose_buckets_${remainder}" partition of "glucose_buckets" for values with (modulus 16, remainder ${remainder});`);

    this.addSql(`create table "glucose_summaries" ("user_id" varchar(36) not null, "kind" varchar(3) not null, "last_data" timestamptz null, "first_data" timestamptz null, "last_upload_date" timestamptz null, "last_updated_date" timestamptz null, "outdated_since" timestamptz null, "pending_from" timestamptz null, "periods" jsonb null, "schema_version" int not null, primary key ("user_id", "kind"));`);
    this.addSql(`create index "glucose_summaries_outdated_since_index" on "glucose_summaries" ("outdated_since");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "glucose_summaries" cascade;`);
    this.addSql(`drop table if exists "glucose_buckets" cascade;`);
  }

}
