import { Migration } from '@mikro-orm/migrations';

export class Migration20261121123250_login_protection_and_brokering extends Migration {

  override name = 'Migration20261121123250_login_protection_and_brokering';

  override up(): void | Promise<void> {
    this.addSql(`create table "identity_links" ("realm" varchar(32) not null, "alias" varchar(64) not null, "subject" varchar(255) not null, "user_id" varchar(10) not null, "email" text null, "created_time" timestamptz not null, primary key ("realm", "alias", "subject"));`);
    this.addSql(`create index "identity_links_user_id_index" on "identity_links" ("user_id");`);

    this.addSql(`create table "login_failures" ("key" varchar(320) not null, "failures" int not null, "last_failure" timestamptz not null, "locked_until" timestamptz null, primary key ("key"));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "identity_links" cascade;`);
    this.addSql(`drop table if exists "login_failures" cascade;`);
  }

}
