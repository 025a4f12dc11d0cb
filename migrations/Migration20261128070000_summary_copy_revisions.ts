import { Migration } from '@mikro-orm/migrations';

/**
 * A revision for each summary's clinic copy (src/domains/glucose/clinic-copy-texts.ts): a number
 * from one sequence, given to the row when it is inserted and again whenever its clinic copy's
 * text changes, so no two texts a database ever held share one. The service keeps the texts it
 * has read by revision, outside the JavaScript heap, and the patient list's page statement reads
 * the revisions instead of the texts (about 12 kB a patient, 630 kB a page of 50): a text read
 * again is not sent, decoded and collected again.
 *
 * A trigger, not the service's statements, gives the revisions: whatever writes the texts (the
 * summary update, a script, a later migration) gives a new revision with a new text.
 */
export class Migration20261128070000_summary_copy_revisions extends Migration {
  override name = 'Migration20261128070000_summary_copy_revisions';

  override up(): void | Promise<void> {
    this.addSql(`create sequence "glucose_summary_revisions";`);
    this.addSql(`alter table "glucose_summaries" add column "revision" bigint null;`);
    this.addSql(`update "glucose_summaries" set "revision" = nextval('glucose_summary_revisions');`);
    this.addSql(`alter table "glucose_summaries" alter column "revision" set not null;`);
    this.addSql(`create function "glucose_summary_next_revision"() returns trigger language plpgsql as $$
      begin
        new.revision := nextval('glucose_summary_revisions');
        return new;
      end $$;`);
    this.addSql(`create trigger "glucose_summary_revision_on_insert" before insert on "glucose_summaries" for each row execute function "glucose_summary_next_revision"();`);
    this.addSql(`create trigger "glucose_summary_revision_on_copy_update" before update of "clinic_periods", "clinic_offset_periods" on "glucose_summaries" for each row when (old.clinic_periods is distinct from new.clinic_periods or old.clinic_offset_periods is distinct from new.clinic_offset_periods) execute function "glucose_summary_next_revision"();`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "glucose_summary_revision_on_copy_update" on "glucose_summaries";`);
    this.addSql(`drop trigger if exists "glucose_summary_revision_on_insert" on "glucose_summaries";`);
    this.addSql(`drop function if exists "glucose_summary_next_revision"();`);
    this.addSql(`alter table "glucose_summaries" drop column "revision";`);
    this.addSql(`drop sequence if exists "glucose_summary_revisions";`);
  }
}
