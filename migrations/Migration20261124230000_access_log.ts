import { Migration } from '@mikro-orm/migrations';

/**
 * The access log (src/domains/access-log): one row per access decision on someone else's
 * account, written by one INSERT per request (or inside the transaction of a change). No foreign
 * keys: entries outlive the accounts and clinics they name, until the retention sweep.
 * - `id` (bigserial) is the order: newest first is `id desc`, and a cursor is one id, so pages
 *   stay stable while entries arrive.
 * - The primary key `(subject_id, id)`: a user's log page is one backward range scan of it,
 *   stopping after `first + 1` rows whatever the size of the log (the count and the outcome and
 *   time filters read the same range). Leading with the account makes the key that every table
 *   needs serve the log's main read too: a key on `id` alone beside an index on
 *   `(subject_id, id)` cost every inserted entry a second B-tree, and a server reading 100
 *   accounts writes 100 entries.
 * - `access_log_clinic_order (clinic_id, id desc) where clinic_id is not null`: a clinic's log
 *   the same way; partial, because most entries (direct shares, servers, refusals) name no clinic.
 * - `access_log_at_brin` on `at`: the retention sweep deletes everything older than a date. Rows
 *   arrive in time order, so a BRIN index (a few pages for millions of rows) finds them, where a
 *   B-tree would cost every insert another index entry for a query run once an hour.
 * Nothing else is indexed: each index is paid by every read that records, and those are the hot path.
 */
export class Migration20261124230000_access_log extends Migration {
  override name = 'Migration20261124230000_access_log';

  override up(): void | Promise<void> {
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
    this.addSql(
      `create index "access_log_clinic_order" on "access_log" ("clinic_id", "id" desc) where "clinic_id" is not null;`,
    );
    this.addSql(`create index "access_log_at_brin" on "access_log" using brin ("at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "access_log" cascade;`);
  }
}
