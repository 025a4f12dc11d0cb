import { Migration } from '@mikro-orm/migrations';

/**
 * Tidepool's clinic copy of each summary's periods (src/domains/glucose/clinic-copy.ts), kept as
 * JSON text beside the summary: the current periods and the previous ones. The REST patient list
 * answered a page of 50 patients by reading their full periods (about 17 kB of JSON each),
 * exporting and shaping 400 periods of about 150 statistics, and serialising them again: most of
 * its 29 ms of CPU a page. Reading the text costs nothing to shape.
 *
 * Summaries written before this have neither column: they are read from their periods, as before,
 * until their next update writes both (clinicCopiesOf in summaries.repository.ts).
 */
export class Migration20261127173000_summary_clinic_copy extends Migration {

  override name = 'Migration20261127173000_summary_clinic_copy';

  override up(): void | Promise<void> {
    this.addSql(`alter table "glucose_summaries" add column "clinic_periods" text null, add column "clinic_offset_periods" text null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "glucose_summaries" drop column "clinic_periods", drop column "clinic_offset_periods";`);
  }

}
