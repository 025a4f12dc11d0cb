import { Migration } from '@mikro-orm/migrations';

export class Migration20261121130501_blobs_and_device_logs extends Migration {

  override name = 'Migration20261121130501_blobs_and_device_logs';

  override up(): void | Promise<void> {
    this.addSql(`create table "blobs" ("id" varchar(32) not null, "user_id" varchar(36) not null, "media_type" varchar(255) not null, "status" varchar(16) not null, "digest_md5" varchar(24) null, "size" int null, "object_key" varchar(255) null, "revision" int not null, "created_time" timestamptz not null, "modified_time" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "blobs_user_id_created_time_index" on "blobs" ("user_id", "created_time");`);

    this.addSql(`create table "device_logs" ("id" varchar(32) not null, "user_id" varchar(36) not null, "digest_md5" varchar(24) not null, "media_type" varchar(255) not null, "size" int not null, "object_key" varchar(255) not null, "start_at_time" timestamptz not null, "end_at_time" timestamptz not null, "created_time" timestamptz not null, "revision" int not null, primary key ("id"));`);
    this.addSql(`create index "device_logs_user_id_start_at_time_end_at_time_index" on "device_logs" ("user_id", "start_at_time", "end_at_time");`);

    this.addSql(`create table "pending_objects" ("key" varchar(255) not null, "is_prefix" boolean not null default false, "lease_until" timestamptz not null, primary key ("key"));`);
    this.addSql(`create index "pending_objects_lease_until_index" on "pending_objects" ("lease_until");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "blobs" cascade;`);
    this.addSql(`drop table if exists "device_logs" cascade;`);
    this.addSql(`drop table if exists "pending_objects" cascade;`);
  }

}
