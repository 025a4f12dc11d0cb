import { Migration } from '@mikro-orm/migrations';

/**
 * The summary updater's queue order, apart from `outdated_since` (which clients see, and which
 * stays the time of the upload that outdated the summary): `queued_at` is when the summary
 * joined the queue, and a rebuild too large for one turn joins it again at the back after each
 * turn, so one account's rebuild cannot hold up other accounts' updates (summary-updater.ts).
 * Summaries outdated now keep their place.
 */
export class Migration20261127070000_glucose_summary_queue extends Migration {
  override name = 'Migration20261127070000_glucose_summary_queue';

  override up(): void | Promise<void> {
    this.addSql(`alter table "glucose_summaries" add column "queued_at" timestamptz null;`);
    this.addSql(`update "glucose_summaries" set "queued_at" = "outdated_since" where "outdated_since" is not null;`);
    this.addSql(`create index "glucose_summaries_queued_at_index" on "glucose_summaries" ("queued_at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "glucose_summaries_queued_at_index";`);
    this.addSql(`alter table "glucose_summaries" drop column "queued_at";`);
  }
}
