import { Migration } from '@mikro-orm/migrations';

/**
 * A user's access log found through a GIN index of the records, instead of one B-tree row per
 * entry.
 *
 * Why: `access_log_entries` added a heap row and a B-tree entry per account reached, which made
 * PostgreSQL's share of a 100-entry read +1.0 to 1.6 ms per request and kept the bench's
 * 100-entry rows near the 10% the access log may cost (README, "Access log"). In `pgbench`
 * (100 accounts per record, 2 clients, synchronous_commit off) a record with its entries wrote
 * 1,500 to 1,800 records a second, and a record under this GIN index 4,900 to 6,000.
 *
 * - `access_log_hour_keys(subject_ids, at)`: one key per account of a record, the account and
 *   the record's hour (counted from 1970-01-01T00:00Z), e.g. `a1b2c3d4e5/498780`. Keyed by
 *   hour, a page of a user's log reads the records of the few newest hours it needs, not every
 *   record of that user. Built-in functions only: PostgreSQL runs an index expression with
 *   search_path set to pg_catalog during maintenance.
 * - `access_log_hour(at)`: the same hour number, for queries.
 * - `access_log_hours (subject_id, hour)`: the hours in which a record reached an account, in
 *   the order of its primary key: where a user's pages look. The service writes each (account,
 *   hour) once per hour and instance (access-log.hours.ts), so a busy hour costs a B-tree entry
 *   per account, not per entry. `allowed` and `refused` count the account's entries of an hour
 *   once the hour is over (filled when a count asks), so counting a long log adds up these rows
 *   instead of reading every record again.
 * - The GIN index keeps fastupdate (the default): keys are appended to its pending list and
 *   merged in bulk, which is what makes it cheap to write (without it: 2,500 records a second).
 * - Entry ids do not change (record id × 4096 + position), nor does the clinic's index.
 */
export class Migration20261125120000_access_log_hours extends Migration {
  override name = 'Migration20261125120000_access_log_hours';

  override up(): void | Promise<void> {
    this.addSql(`create function access_log_hour(at timestamptz) returns integer
      language sql immutable parallel safe
      as $$ select floor(extract(epoch from (at at time zone 'UTC')) / 3600)::integer $$;`);
    this.addSql(`create function access_log_hour_keys(subject_ids text[], at timestamptz) returns text[]
      language sql immutable parallel safe
      as $$ select array(select subject || '/' || floor(extract(epoch from (at at time zone 'UTC')) / 3600)::integer
                           from unnest(subject_ids) as subject) $$;`);
    this.addSql(
      `create index "access_log_records_hour_keys" on "access_log_records" using gin (access_log_hour_keys("subject_ids", "at"));`,
    );
    this.addSql(`create table "access_log_hours" (
      "subject_id" varchar(36) not null,
      "hour" integer not null,
      "allowed" integer null,
      "refused" integer null,
      constraint "access_log_hours_pkey" primary key ("subject_id", "hour")
    );`);
    this.addSql(`insert into "access_log_hours" ("subject_id", "hour")
      select distinct subject, access_log_hour(r."at") from "access_log_records" r, unnest(r."subject_ids") as subject;`);
    // Every entry is its record's account at its position: the records hold them all.
    this.addSql(`drop table "access_log_entries";`);
  }

  /** Back to an entry row per account of each record. */
  override down(): void | Promise<void> {
    this.addSql(`create table "access_log_entries" (
      "subject_id" varchar(36) not null,
      "id" bigint not null,
      constraint "access_log_entries_pkey" primary key ("subject_id", "id")
    );`);
    this.addSql(`create index "access_log_entries_id_brin" on "access_log_entries" using brin ("id");`);
    this.addSql(`insert into "access_log_entries" ("subject_id", "id")
      select s.subject_id, r."id" * 4096 + s.position - 1
        from "access_log_records" r, unnest(r."subject_ids") with ordinality as s(subject_id, position);`);
    this.addSql(`drop table "access_log_hours";`);
    this.addSql(`drop index "access_log_records_hour_keys";`);
    this.addSql(`drop function access_log_hour_keys(text[], timestamptz);`);
    this.addSql(`drop function access_log_hour(timestamptz);`);
  }
}
