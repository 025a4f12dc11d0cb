import type { EntityManager } from '@mikro-orm/postgresql';
import type { Transaction } from 'kysely';
import { executeBound, executePrepared } from './orm';

/** What a statement that changes rows answers. */
export interface SqlResult<Row> {
  rows: Row[];
  affectedRows: number;
}

/**
 * The one way Islet runs hand-written SQL: repositories (`<domain>.repository.ts`) hold the
 * statements and run them through this, never through the ORM's connection directly. Every
 * statement is counted for the request (`X-Sql-Statements`) and runs inside the entity manager's
 * transaction when it has one, else on a pooled connection.
 *
 * - `rows`/`run`: `?` placeholders, which MikroORM fills in on the client: the common case.
 * - `bound`: `$1`, `$2`… bound by the driver, for bulk writes of large arrays, whose inlining
 *   would cost as much as the write.
 * - `prepared`: a named prepared statement, outside any transaction, for a statement run so
 *   often that parsing and planning it each time shows (the access log's INSERT).
 * - `stream`: `?` placeholders, the rows read through a cursor, for a statement whose rows are
 *   too many to hold at once (an export).
 */
export class SqlRunner {
  constructor(private readonly em: EntityManager) {}

  rows<Row = Record<string, unknown>>(sql: string, params: readonly unknown[] = []): Promise<Row[]> {
    return this.em.execute<Row[]>(sql, [...params]);
  }

  /** The statement's affected rows (inserted, updated or deleted). */
  async run(sql: string, params: readonly unknown[] = []): Promise<number> {
    const result = await this.em.execute<{ affectedRows: number }>(sql, [...params], 'run');
    return result.affectedRows;
  }

  /**
   * The rows one at a time, read `chunkSize` at a time through a cursor (pg-cursor, which the ORM
   * configures) as the caller asks for them: one statement in one pass, holding a connection (or
   * the transaction's) until the rows end or the caller stops reading, which closes the cursor.
   */
  stream<Row = Record<string, unknown>>(
    sql: string,
    params: readonly unknown[],
    chunkSize: number,
  ): AsyncIterableIterator<Row> {
    const transaction = this.em.getTransactionContext<Transaction<unknown>>();
    return this.em.getConnection().stream<Row & object>(sql, [...params], transaction, undefined, chunkSize);
  }

  bound<Row = Record<string, unknown>>(sql: string, params: readonly unknown[]): Promise<SqlResult<Row>> {
    return executeBound(this.em, sql, params) as Promise<SqlResult<Row>>;
  }

  prepared<Row = Record<string, unknown>>(
    name: string,
    sql: string,
    params: readonly unknown[],
  ): Promise<SqlResult<Row>> {
    return executePrepared(this.em, name, sql, params) as Promise<SqlResult<Row>>;
  }
}

/** The runner for `em` (a request's entity manager, or a transaction's). */
export const sqlOf = (em: EntityManager): SqlRunner => new SqlRunner(em);
