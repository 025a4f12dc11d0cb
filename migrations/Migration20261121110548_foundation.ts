import { Migration } from '@mikro-orm/migrations';

export class Migration20261121110548_foundation extends Migration {

  override name = 'Migration20261121110548_foundation';

  override up(): void | Promise<void> {
    this.addSql(`create table "oidc_records" ("realm" varchar(32) not null, "model" varchar(48) not null, "id" varchar(255) not null, "payload" jsonb not null, "grant_id" varchar(255) null, "uid" varchar(255) null, "expires_at" timestamptz null, "consumed_at" timestamptz null, primary key ("realm", "model", "id"));`);
    this.addSql(`create index "oidc_records_expires_at_index" on "oidc_records" ("expires_at");`);
    this.addSql(`create index "oidc_records_realm_grant_id_index" on "oidc_records" ("realm", "grant_id");`);
    this.addSql(`create index "oidc_records_realm_uid_index" on "oidc_records" ("realm", "uid");`);

    this.addSql(`create table "realm_keys" ("realm" varchar(32) not null, "kid" varchar(64) not null, "use" varchar(16) not null, "material" jsonb not null, "created_at" timestamptz not null, "retired_at" timestamptz null, primary key ("realm", "kid"));`);

    this.addSql(`create table "revoked_sessions" ("realm" varchar(32) not null, "grant_id" varchar(255) not null, "expires_at" timestamptz not null, primary key ("realm", "grant_id"));`);
    this.addSql(`create index "revoked_sessions_expires_at_index" on "revoked_sessions" ("expires_at");`);

    this.addSql(`create table "users" ("id" varchar(10) not null, "username" text null, "emails" text[] not null default '{}', "password_hash" text null, "roles" text[] not null default '{}', "email_verified" boolean not null default false, "terms_accepted" timestamptz null, "created_time" timestamptz not null, "created_user_id" varchar(10) null, "modified_time" timestamptz null, "modified_user_id" varchar(10) null, primary key ("id"));`);

    this.addSql(`create table "user_emails" ("email" text not null, "user_id" varchar(10) not null, primary key ("email"));`);
    this.addSql(`create index "user_emails_user_id_index" on "user_emails" ("user_id");`);

    this.addSql(`alter table "user_emails" add constraint "user_emails_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "user_emails" drop constraint "user_emails_user_id_foreign";`);

    this.addSql(`drop table if exists "oidc_records" cascade;`);
    this.addSql(`drop table if exists "realm_keys" cascade;`);
    this.addSql(`drop table if exists "revoked_sessions" cascade;`);
    this.addSql(`drop table if exists "users" cascade;`);
    this.addSql(`drop table if exists "user_emails" cascade;`);
  }

}
