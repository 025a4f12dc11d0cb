import { Migration } from '@mikro-orm/migrations';

export class Migration20261123085644_exact_key_removals extends Migration {

  override name = 'Migration20261123085644_exact_key_removals';

  override up(): void | Promise<void> {
    // Removals now announce exact keys. A prefix announcement left by the old code names no
    // object the sweeper could delete by key; no release shipped it, so it is dropped here.
    this.addSql(`delete from "pending_objects" where "is_prefix";`);
    this.addSql(`alter table "pending_objects" drop column "is_prefix";`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "pending_objects" add "is_prefix" bool not null default false;`);
  }

}
