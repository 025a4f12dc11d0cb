import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';

/** Runs SQL on `em`, inside its transaction when it has one. */
export async function execute<T = Record<string, unknown>[]>(
  em: EntityManager,
  sql: string,
  params: readonly unknown[] = [],
): Promise<T> {
  return (await em.getConnection().execute(sql, [...params], 'all', em.getTransactionContext())) as unknown as T;
}

/** Whether an insert or update broke a unique constraint, raised by the ORM or straight from the driver. */
export const isUniqueViolation = (error: unknown): boolean =>
  error instanceof UniqueConstraintViolationException || (error as { code?: string } | null)?.code === '23505';
