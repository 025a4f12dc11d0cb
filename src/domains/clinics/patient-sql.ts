import type { EntityManager } from '@mikro-orm/postgresql';

/** Runs SQL on `em`, inside its transaction when it has one. */
export async function execute<T = Record<string, unknown>[]>(
  em: EntityManager,
  sql: string,
  params: readonly unknown[] = [],
): Promise<T> {
  return (await em.getConnection().execute(sql, [...params], 'all', em.getTransactionContext())) as unknown as T;
}
