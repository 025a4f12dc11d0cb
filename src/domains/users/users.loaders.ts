import { Loader } from '../../kernel/loader';
import type { Scope } from '../../kernel/scope';
import { placeholders } from '../../kernel/sql';
import type { UserRecord } from './user.entity';

interface UserRow {
  id: string;
  username: string | null;
  emails: string[];
  password_hash: string | null;
  roles: string[];
  email_verified: boolean;
  terms_accepted: Date | null;
  created_time: Date;
  created_user_id: string | null;
  modified_time: Date | null;
  modified_user_id: string | null;
}

/**
 * A row as a plain snapshot. Reads are the hot path (every authenticated call reads its caller),
 * and a managed entity costs as much as the query itself; `UsersService.update` makes the one it
 * changes managed.
 */
function toUserRecord(row: UserRow): UserRecord {
  return {
    id: row.id,
    username: row.username,
    emails: row.emails,
    passwordHash: row.password_hash,
    roles: row.roles,
    emailVerified: row.email_verified,
    termsAccepted: row.terms_accepted,
    createdTime: row.created_time,
    createdUserId: row.created_user_id,
    modifiedTime: row.modified_time,
    modifiedUserId: row.modified_user_id,
  };
}

/** Accounts by id, batched per request: any number of lookups cost one SELECT. */
export function userLoader(scope: Scope): Loader<string, UserRecord | null> {
  return scope.loaders.get('users.byId', () => {
    return new Loader<string, UserRecord | null>(async (ids) => {
      const rows = await scope.em
        .getConnection()
        .execute<UserRow[]>(`select * from users where id in (${placeholders(ids.length)})`, [...ids]);
      const byId = new Map(rows.map((row) => [row.id, toUserRecord(row)]));
      return ids.map((id) => byId.get(id) ?? null);
    });
  });
}
