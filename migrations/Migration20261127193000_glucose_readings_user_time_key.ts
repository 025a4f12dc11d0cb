import { Migration } from '@mikro-orm/migrations';

/**
 * The readings' primary key (user_id, time, id) was 48 bytes an entry (8 of header, 11 of user
 * id padded to 16, 8 of time, 16 of id): 59 bytes a reading when an account's readings arrive in
 * time order, and 93 to 105 when uploads of one account land side by side in its time range
 * (`BENCH_ONLY=glucose npm run bench`), because a page split in the middle of an index leaves
 * both halves half full. It is replaced by an index of (a 64-bit hash of the user id, time):
 * 24 bytes an entry, and narrow enough (two 8-byte keys) for PostgreSQL's split of a page after
 * an ascending run of one key prefix (`_bt_afternewitemoff`, nbtsplitloc.c), which fills the left
 * page to the fill factor instead of halving it: 33 to 38 bytes a reading whatever the order
 * (the bench's table and indexes: 113 MiB per million readings, from 158 to 169).
 * Queries name the hash (`OF_USERS`, `OF_USER_AT` of src/domains/glucose/readings.repository.ts)
 * besides the user id, which partitions the table and rules out the hash's rare collisions. The
 * index orders by time alone: reads in batches end each batch at a time (`batchEnd`).
 *
 * Nothing read a reading by id alone: reads go by user and time, ordered by (time, id); the
 * deduplicators key on the dataset's content or the origin key's own unique index; a reading
 * removed as a copy is one its upload inserted (dropCopies, reading-upload.repository.ts). So
 * (user, time, id) is no longer enforced by an index: a record sent again with its id and time
 * is dropped as a copy by the upload, whatever its dataset's deduplicator (it was refused by the
 * key before).
 */
export class Migration20261127193000_glucose_readings_user_time_key extends Migration {
  override name = 'Migration20261127193000_glucose_readings_user_time_key';

  override up(): void | Promise<void> {
    this.addSql(`alter table "glucose_readings" drop constraint "glucose_readings_pkey";`);
    this.addSql(
      `create index "glucose_readings_user_time_index" on "glucose_readings" (hashtextextended("user_id", 0), "time");`,
    );
  }

  /** Back to the primary key; readings stored twice with one id at one time keep one row. */
  override down(): void | Promise<void> {
    this.addSql(`
      delete from "glucose_readings" a using "glucose_readings" b
       where a.user_id = b.user_id and a.time = b.time and a.id = b.id and a.tableoid = b.tableoid and a.ctid > b.ctid;`);
    this.addSql(`drop index "glucose_readings_user_time_index";`);
    this.addSql(`alter table "glucose_readings" add primary key ("user_id", "time", "id");`);
  }
}
