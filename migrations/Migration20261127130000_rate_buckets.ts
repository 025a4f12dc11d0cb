import { Migration } from '@mikro-orm/migrations';

/**
 * Token buckets shared by every instance (src/infra/rate-limits): the token endpoint's limit per
 * realm and address is one limit behind a load balancer, not one per instance. `updated_at` is
 * indexed for the sweep of idle buckets.
 */
export class Migration20261127130000_rate_buckets extends Migration {
  override name = 'Migration20261127130000_rate_buckets';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "rate_buckets" ("key" varchar(200) not null, "tokens" double precision not null, "updated_at" timestamptz not null, primary key ("key"));`,
    );
    this.addSql(`create index "rate_buckets_updated_at_index" on "rate_buckets" ("updated_at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "rate_buckets";`);
  }
}
