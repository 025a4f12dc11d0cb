import { Migration } from '@mikro-orm/migrations';

/**
 * The mail outbox (src/infra/mail). `outbound_mails_due` is the sender's queue: only unsent
 * mails, by when they are due. The other two count a recipient's and a source's recent mails
 * for the limits; sent mails stay (bodies cleared) until they leave the limits' window.
 */
export class Migration20261127080000_mail_outbox extends Migration {
  override name = 'Migration20261127080000_mail_outbox';

  override up(): void | Promise<void> {
    this.addSql(`create table "outbound_mails" (
      "id" bigserial primary key,
      "kind" text not null,
      "recipient" text not null,
      "source" text null,
      "subject" text not null,
      "text_body" text null,
      "html_body" text null,
      "created_at" timestamptz not null default now(),
      "due_at" timestamptz not null default now(),
      "attempts" int not null default 0,
      "last_error" text null,
      "sent_at" timestamptz null
    );`);
    this.addSql(`create index "outbound_mails_due" on "outbound_mails" ("due_at") where "sent_at" is null;`);
    this.addSql(
      `create index "outbound_mails_recipient_created_at" on "outbound_mails" (lower("recipient"), "created_at");`,
    );
    this.addSql(`create index "outbound_mails_source_created_at" on "outbound_mails" ("source", "created_at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "outbound_mails";`);
  }
}
