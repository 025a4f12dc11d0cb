import { Migration } from '@mikro-orm/migrations';

export class Migration20261121115256_sharing_and_account_sessions extends Migration {

  override name = 'Migration20261121115256_sharing_and_account_sessions';

  override up(): void | Promise<void> {
    this.addSql(`create table "permission_grants" ("sharer_id" varchar(10) not null, "grantee_id" varchar(10) not null, "permissions" text[] not null, "created_time" timestamptz not null, "modified_time" timestamptz not null, primary key ("sharer_id", "grantee_id"));`);
    this.addSql(`create index "permission_grants_grantee_id_index" on "permission_grants" ("grantee_id");`);

    this.addSql(`alter table "oidc_records" add "account_id" varchar(64) null;`);
    this.addSql(`create index "oidc_records_account_id_index" on "oidc_records" ("account_id");`);
    // Records written before the column existed: sessions of an account must be findable to end them.
    this.addSql(`update "oidc_records" set "account_id" = "payload"->>'accountId' where "payload"->>'accountId' is not null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "permission_grants" cascade;`);

    this.addSql(`drop index "oidc_records_account_id_index";`);
    this.addSql(`alter table "oidc_records" drop column "account_id";`);
  }

}
