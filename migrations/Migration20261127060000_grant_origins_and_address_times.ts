import { Migration } from '@mikro-orm/migrations';

/**
 * Security round 2 (issue 27, items 3 and 4).
 *
 * - `permission_grants.clinic_id`, `granted_by`: a grant made using a clinic's access (an admin
 *   of a clinic that holds custodian on the account) names that clinic and its maker, so the
 *   access log shows the clinic whenever the grant is used, and the grant ends when the clinic no
 *   longer backs it (its maker or holder leaves the clinic, the patient leaves it). Grants made
 *   before keep null: they were the sharer's own, its custodians' or a server's.
 * - `user_emails.added_time`: when an address became the account's. Until addresses are
 *   verified, a clinician invitation is for the account that held its address when it was sent,
 *   not for one that added the address afterwards. Existing addresses count as added when their
 *   account was created.
 */
export class Migration20261127060000_grant_origins_and_address_times extends Migration {
  override name = 'Migration20261127060000_grant_origins_and_address_times';

  override up(): void | Promise<void> {
    this.addSql(`alter table "permission_grants" add column "clinic_id" varchar(24) null, add column "granted_by" varchar(10) null;`);
    this.addSql(`create index "permission_grants_clinic_id_index" on "permission_grants" ("clinic_id");`);
    this.addSql(`alter table "user_emails" add column "added_time" timestamptz null;`);
    this.addSql(`update "user_emails" e set "added_time" = u."created_time" from "users" u where u."id" = e."user_id";`);
    this.addSql(`alter table "user_emails" alter column "added_time" set not null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "user_emails" drop column "added_time";`);
    this.addSql(`drop index "permission_grants_clinic_id_index";`);
    this.addSql(`alter table "permission_grants" drop column "clinic_id", drop column "granted_by";`);
  }
}
