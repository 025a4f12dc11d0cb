import type { EntityName } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { CompiledQuery, type Transaction } from 'kysely';
import { isAppError } from '../../kernel/errors';
import { executeBound, executePrepared, executeReusable } from './orm';
import { replicaFor, type ReplicaTarget } from './replicas';

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
 * - `reusable`: `$1`, `$2`… as a named prepared statement on the pool, for a read most requests
 *   make (the caller's account, grants), whose parsing and planning would cost more than its run;
 *   inside a transaction it runs there, unnamed.
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

  reusable<Row = Record<string, unknown>>(name: string, sql: string, params: readonly unknown[]): Promise<Row[]> {
    return executeReusable(this.em, name, sql, params) as Promise<Row[]>;
  }

  prepared<Row = Record<string, unknown>>(
    name: string,
    sql: string,
    params: readonly unknown[],
  ): Promise<SqlResult<Row>> {
    return executePrepared(this.em, name, sql, params) as Promise<SqlResult<Row>>;
  }
}

/** Column lists by entity and alias, made once: the entities' metadata does not change. */
const columnLists = new Map<string, string>();

/**
 * The columns `entity` declares, as a select list (`alias.column, …`): a prepared statement
 * (`reusable`) names its columns, as under a prepared `*` a migration adding one would change the
 * statement's shape and PostgreSQL would refuse to run it.
 */
export function columnsOf(em: EntityManager, entity: EntityName, alias: string): string {
  const meta = em.getMetadata(entity);
  const key = `${meta.className}:${alias}`;
  let list = columnLists.get(key);
  if (list === undefined) {
    list = meta.props.flatMap((prop) => prop.fieldNames.map((column) => `${alias}.${column}`)).join(', ');
    columnLists.set(key, list);
  }
  return list;
}

/** A property of an entity, the column it reads and whether it holds a date. */
interface PropertyColumn {
  property: string;
  column: string;
  date: boolean;
}

/** Each entity's properties with the column each reads, listed once. */
const propertyColumns = new Map<string, PropertyColumn[]>();

/**
 * A row of `entity`'s columns (columnsOf) as a plain record of its properties, for reads that
 * only show what they read: the driver has already made its JSON, arrays and booleans, and dates
 * come as text (MikroORM's settings of the driver), made Dates here as `em.map` makes them.
 * Unlike `em.map` nothing is hydrated into the unit of work, which cost a request reading one
 * clinic more than parsing its statement's rows. Each property must read one column, as a
 * relation or an embedded value would read several.
 */
export function recordOf<Entity extends object>(
  em: EntityManager,
  entity: EntityName<Entity>,
  row: Record<string, unknown>,
): Entity {
  const meta = em.getMetadata(entity);
  let columns = propertyColumns.get(meta.className);
  if (columns === undefined) {
    columns = meta.props.map((prop) => {
      if (prop.fieldNames.length !== 1)
        throw new Error(`${meta.className}.${prop.name} reads ${prop.fieldNames.length} columns`);
      return { property: prop.name, column: prop.fieldNames[0]!, date: prop.runtimeType === 'Date' };
    });
    propertyColumns.set(meta.className, columns);
  }
  const record: Record<string, unknown> = {};
  for (const { property, column, date } of columns) {
    const value = row[column];
    record[property] = date && typeof value === 'string' ? new Date(value) : value;
  }
  return record as Entity;
}

/** The runner for `em` (a request's entity manager, or a transaction's). */
export const sqlOf = (em: EntityManager): SqlRunner => new SqlRunner(em);

/** The reads a runner offers; both the primary's runner and staleReadsOf's have them. */
export type SqlReads = Pick<SqlRunner, 'rows' | 'bound' | 'stream'>;

/**
 * Reads that tolerate a little staleness (lists and their counts, reports, exports), which may
 * run on a streaming replica: one that is up, within REPLICA_MAX_LAG_MS and has replayed the
 * caller's last write (replicas.ts), chosen at the first statement and kept for the others, so
 * the batches of one export read one server. Inside a transaction, in a request that wrote, or
 * with no replica fit (or none configured), they run on the primary exactly as `sqlOf(em)`'s.
 * A statement that fails on the replica runs again on the primary (a stream: when it fails
 * before its first row), so a replica going down is never the caller's error. Counted for the
 * request like every statement.
 */
export class StaleReads implements SqlReads {
  private readonly primary: SqlRunner;
  private target: ReplicaTarget | null | undefined;

  constructor(private readonly em: EntityManager) {
    this.primary = new SqlRunner(em);
  }

  rows<Row = Record<string, unknown>>(sql: string, params: readonly unknown[] = []): Promise<Row[]> {
    return this.onReplica(
      (replica) => replica.execute<Row[]>(sql, [...params], 'all'),
      () => this.primary.rows<Row>(sql, params),
    );
  }

  bound<Row = Record<string, unknown>>(sql: string, params: readonly unknown[]): Promise<SqlResult<Row>> {
    return this.onReplica(
      async (replica) => {
        // The ORM's onQuery counts the statement (and refuses NUL), as executeBound does on the primary.
        const counted = this.em.config.get('onQuery')(sql, [...params]);
        const result = await replica.getClient().executeQuery<Row>(CompiledQuery.raw(counted, [...params]));
        return { rows: result.rows, affectedRows: Number(result.numAffectedRows ?? 0) };
      },
      () => this.primary.bound<Row>(sql, params),
    );
  }

  async *stream<Row = Record<string, unknown>>(
    sql: string,
    params: readonly unknown[],
    chunkSize: number,
  ): AsyncIterableIterator<Row> {
    const target = this.chosen();
    if (target) {
      let started = false;
      try {
        for await (const row of target.connection.stream<Row & object>(
          sql,
          [...params],
          undefined,
          undefined,
          chunkSize,
        )) {
          started = true;
          yield row;
        }
        return;
      } catch (error) {
        if (started || refusedStatement(error)) throw error;
        this.replicaFailed(target, error);
      }
    }
    yield* this.primary.stream<Row>(sql, params, chunkSize);
  }

  private chosen(): ReplicaTarget | null {
    if (this.target === undefined) this.target = replicaFor(this.em);
    return this.target;
  }

  private async onReplica<T>(
    onReplica: (replica: ReplicaTarget['connection']) => Promise<T>,
    onPrimary: () => Promise<T>,
  ): Promise<T> {
    const target = this.chosen();
    if (!target) return onPrimary();
    try {
      return await onReplica(target.connection);
    } catch (error) {
      if (refusedStatement(error)) throw error;
      this.replicaFailed(target, error);
      return onPrimary();
    }
  }

  /** The read failed on the replica: this runner's later statements, and its retry, go to the primary. */
  private replicaFailed(target: ReplicaTarget, error: unknown): void {
    target.failed(error);
    this.target = null;
  }
}

/**
 * The statement itself was refused (a NUL in its values, a value PostgreSQL cannot take: SQLSTATE
 * class 22), as the primary would refuse it too: no reason to doubt the replica, nor to run it twice.
 */
function refusedStatement(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return isAppError(error) || (typeof code === 'string' && code.startsWith('22'));
}

/** Stale-tolerant reads on `em` (see StaleReads). */
export const staleReadsOf = (em: EntityManager): StaleReads => new StaleReads(em);
