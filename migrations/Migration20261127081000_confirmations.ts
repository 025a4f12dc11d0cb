import { Migration } from '@mikro-orm/migrations';

/**
 * Confirmations (src/domains/confirmations): what an address is asked to confirm by the key
 * mailed to it (sign-up, password reset, invitations). The key is stored only as its SHA-256,
 * unique, so a key is found by its hash in one index probe.
 */
export class Migration20261127081000_confirmations extends Migration {
  override name = 'Migration20261127081000_confirmations';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "confirmations" ("id" varchar(32) not null, "key_hash" varchar(64) not null, "type" varchar(32) not null, "status" varchar(16) not null, "email" text not null, "creator_id" varchar(10) null, "user_id" varchar(10) null, "context" jsonb null, "created" timestamptz not null, "modified" timestamptz null, "expires_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`alter table "confirmations" add constraint "confirmations_key_hash_unique" unique ("key_hash");`);
    this.addSql(`create index "confirmations_creator_id_index" on "confirmations" ("creator_id");`);
    this.addSql(`create index "confirmations_user_id_index" on "confirmations" ("user_id");`);
    this.addSql(
      `create index "confirmations_email_type_status_index" on "confirmations" ("email", "type", "status");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "confirmations";`);
  }
}
