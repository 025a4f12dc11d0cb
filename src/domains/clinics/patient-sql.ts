import type { EntityManager } from '@mikro-orm/postgresql';

/** Runs SQL on `em`, inside its transaction when it has one. */
export async function execute<T = Record<string, unknown>[]>(
  em: EntityManager,
  sql: string,
  params: readonly unknown[] = [],
): Promise<T> {
  return (await em.getConnection().execute(sql, [...params], 'all', em.getTransactionContext())) as unknown as T;
}

/**
 * A text[] parameter: the driver layer expands a JavaScript array into a list of parameters,
 * so arrays travel as one PostgreSQL array literal, cast with `?::text[]`.
 */
export function textArray(values: readonly string[]): string {
  return `{${values.map((value) => `"${value.replace(/["\\]/g, '\\$&')}"`).join(',')}}`;
}
