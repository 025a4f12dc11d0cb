import DataLoader from 'dataloader';
import type { Scope } from '../../kernel/scope';
import { UserSchema, type UserRecord } from './user.entity';

/** Accounts by id, batched per request: any number of lookups cost one SELECT. */
export function userLoader(scope: Scope): DataLoader<string, UserRecord | null> {
  return scope.loaders.get('users.byId', () => {
    return new DataLoader<string, UserRecord | null>(async (ids) => {
      const rows = await scope.em
        .getConnection()
        .execute<Record<string, unknown>[]>(`select * from users where id in (${ids.map(() => '?').join(', ')})`, [
          ...ids,
        ]);
      const byId = new Map(rows.map((row) => [row.id as string, scope.em.map(UserSchema, row)]));
      return ids.map((id) => byId.get(id) ?? null);
    });
  });
}
