import { Migration } from '@mikro-orm/migrations';

/**
 * A revision for each summary's clinic copy as the patient list shows it
 * (src/domains/glucose/clinic-copy-cache.ts): a number from one sequence, given to the row when it
 * is inserted and again whenever its copy's text or one of the dates shown beside it changes, so
 * a revision names one copy for good. The service keeps the copies it has read by revision, their
 * texts outside the JavaScript heap, and the patient list's page statement reads the revisions
 * instead of the copies (about 12 kB a patient, 630 kB a page of 50): a copy read again is not
 * sent, decoded, shaped and collected again.
 *
 * A trigger, not the service's statements, gives the revisions: whatever writes the copy (the
 * summary update, the upload that marks it outdated, a script, a later migration) gives it a new
 * revision.
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
    this.addSql(`create trigger "glucose_summary_revision_on_copy_update"
      before update of "clinic_periods", "clinic_offset_periods", "last_data", "first_data", "last_upload_date",
                       "last_updated_date", "outdated_since" on "glucose_summaries"
      for each row when (
        old.clinic_periods is distinct from new.clinic_periods
        or old.clinic_offset_periods is distinct from new.clinic_offset_periods
        or old.last_data is distinct from new.last_data
        or old.first_data is distinct from new.first_data
        or old.last_upload_date is distinct from new.last_upload_date
        or old.last_updated_date is distinct from new.last_updated_date
        or old.outdated_since is distinct from new.outdated_since)
      execute function "glucose_summary_next_revision"();`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "glucose_summary_revision_on_copy_update" on "glucose_summaries";`);
    this.addSql(`drop trigger if exists "glucose_summary_revision_on_insert" on "glucose_summaries";`);
    this.addSql(`drop function if exists "glucose_summary_next_revision"();`);
    this.addSql(`alter table "glucose_summaries" drop column "revision";`);
    this.addSql(`drop sequence if exists "glucose_summary_revisions";`);
  }
}
