import { Migration } from '@mikro-orm/migrations';

/**
 * The access log as two tables: what a request did, once, and the accounts it did it to.
 *
 * Why: `access_log` held one wide row per account reached, so a read of 100 accounts wrote 100
 * copies of the accessor, client, clinic, operation, outcome and request id, each with its own
 * sequence value, a partial clinic index entry and a BRIN entry. That cost the bench's 100-entry
 * reads 13 to 16% of their throughput against the 10% the access log may cost (README, "Access
 * log"). In `pgbench`, the same 100 entries written as one record and 100 two-column index rows
 * take about 40% less of PostgreSQL's time, and the service sends a sixth of the bytes.
 *
 * - `access_log_records`: one row per request and kind of decision (operation, outcome, clinic),
 *   with the accounts in `subject_ids` and, at the same position of `object_ids`, the text of
 *   the array of object ids of that account. The partial clinic index and the BRIN index of the
 *   retention sweep are here, one entry per record.
 * - `access_log_entries (subject_id, id)`: the primary key is a user's log, read as one backward
 *   range scan, as before. An entry's id is its record's id × 4096 + its position in the record
 *   (at most 4096 accounts per record), so entry ids still grow with time and a cursor is still
 *   one number; the record is found from it. `access_log_entries_id_brin` lets the sweep find
 *   the entries of the records it removes.
 * - Existing entries become one record each, keeping their order: the entry with id n becomes
 *   entry n × 4096 of record n. Cursors handed out before the migration no longer match.
 */
export class Migration20261125080000_access_log_records extends Migration {
  override name = 'Migration20261125080000_access_log_records';

  override up(): void | Promise<void> {
    this.addSql(`create table "access_log_records" (
      "id" bigserial primary key,
      "at" timestamptz not null default now(),
      "actor_user_id" varchar(36) null,
      "actor_is_server" boolean not null,
      "client_id" text null,
      "clinic_id" varchar(24) null,
      "operation" text not null,
      "outcome" varchar(8) not null,
      "request_id" text not null,
      "subject_ids" text[] not null,
      "object_ids" text[] not null
    );`);
    this.addSql(
      `create index "access_log_records_clinic_order" on "access_log_records" ("clinic_id", "id" desc) where "clinic_id" is not null;`,
    );
    this.addSql(`create index "access_log_records_at_brin" on "access_log_records" using brin ("at");`);
    this.addSql(`create table "access_log_entries" (
      "subject_id" varchar(36) not null,
      "id" bigint not null,
      constraint "access_log_entries_pkey" primary key ("subject_id", "id")
    );`);
    this.addSql(`create index "access_log_entries_id_brin" on "access_log_entries" using brin ("id");`);

    this.addSql(`insert into "access_log_records" ("id", "at", "actor_user_id", "actor_is_server", "client_id", "clinic_id", "operation", "outcome", "request_id", "subject_ids", "object_ids")
      select "id", "at", "actor_user_id", "actor_is_server", "client_id", "clinic_id", "operation", "outcome", "request_id", array["subject_id"]::text[], array["object_ids"::text]
        from "access_log" order by "id";`);
    this.addSql(
      `insert into "access_log_entries" ("subject_id", "id") select "subject_id", "id" * 4096 from "access_log";`,
    );
    // The next record follows the last entry carried over (setval's false: nextval answers this value).
    this.addSql(
      `select setval(pg_get_serial_sequence('access_log_records', 'id'), coalesce((select max("id") from "access_log"), 0) + 1, false);`,
    );
    this.addSql(`drop table "access_log";`);
  }

  /** Back to one row per entry: each entry keeps its id, with its record's columns. */
  override down(): void | Promise<void> {
    this.addSql(`create table "access_log" (
      "subject_id" varchar(36) not null,
      "id" bigserial not null,
      "at" timestamptz not null default now(),
      "actor_user_id" varchar(36) null,
      "actor_is_server" boolean not null,
      "client_id" text null,
      "clinic_id" varchar(24) null,
      "operation" text not null,
      "object_ids" text[] not null,
      "outcome" varchar(8) not null,
      "request_id" text not null,
      constraint "access_log_pkey" primary key ("subject_id", "id")
    );`);
    this.addSql(`insert into "access_log" ("subject_id", "id", "at", "actor_user_id", "actor_is_server", "client_id", "clinic_id", "operation", "object_ids", "outcome", "request_id")
      select e."subject_id", e."id", r."at", r."actor_user_id", r."actor_is_server", r."client_id", r."clinic_id", r."operation",
             r."object_ids"[e."id" % 4096 + 1]::text[], r."outcome", r."request_id"
        from "access_log_entries" e join "access_log_records" r on r."id" = e."id" / 4096;`);
    this.addSql(
      `select setval(pg_get_serial_sequence('access_log', 'id'), coalesce((select max("id") from "access_log"), 0) + 1, false);`,
    );
    this.addSql(
      `create index "access_log_clinic_order" on "access_log" ("clinic_id", "id" desc) where "clinic_id" is not null;`,
    );
    this.addSql(`create index "access_log_at_brin" on "access_log" using brin ("at");`);
    this.addSql(`drop table "access_log_entries";`);
    this.addSql(`drop table "access_log_records";`);
  }
}
