import { MikroORM, type EntityManager, type Options } from '@mikro-orm/postgresql';
import { CompiledQuery, type Kysely, type Transaction } from 'kysely';
import pg from 'pg';
import { Migrator } from '@mikro-orm/migrations';
import { migrations } from '../../../migrations';
import { invalid } from '../../kernel/errors';
import { findNul } from '../../kernel/validation';
import { requestScope } from '../logger';
import { meterPool } from '../metrics';

export type Orm = MikroORM;

/** The entities the ORM manages; the composition root (src/entities.ts) supplies them. */
export type EntityList = NonNullable<Options['entities']>;

/**
 * Counts statements per request so tests and benchmarks can see what a request costs. Refuses
 * a statement with a NUL in a text value before it is sent: PostgreSQL cannot store one, and as
 * MikroORM inlines values, it would cut the statement short (08P01). Inputs are checked where
 * they enter, naming the field; this is the net under every path that might still miss one.
 */
function countStatement(sql: string, params: readonly unknown[] = []): string {
  if (findNul(params) !== undefined) throw invalid('Text in the request must not contain NUL characters');
  const scope = requestScope.getStore();
  if (scope) scope.sqlStatements += 1;
  return sql;
}

/** Where the ORM connects besides its primary: streaming replicas, for the reads that may be a little stale. */
export interface ReplicaOptions {
  replicaUrls?: readonly string[];
}

export function ormOptions(
  url: string,
  entities: EntityList,
  poolSize = 10,
  { replicaUrls = [] }: ReplicaOptions = {},
): Options {
  return {
    clientUrl: url,
    replicas: replicaUrls.map((clientUrl, index) => ({ name: `replica-${index + 1}`, clientUrl })),
    // MikroORM would send every read outside a transaction to a replica; Islet chooses which reads
    // may be stale (and which replica is current enough) itself.
    preferReadReplicas: false,
    entities,
    extensions: [Migrator],
    migrations: {
      migrationsList: migrations,
      snapshot: false,
      snapshotOnMigrate: false,
      silent: true,
      tableName: 'schema_migrations',
      // Each migration runs in a transaction, all of them in one (MikroORM's defaults, pinned here):
      // a transaction-mode pooler (PgBouncer) then keeps a run on one server connection, so
      // migrations go through DATABASE_URL like every other statement; only the lock that spans
      // them needs a session of its own (`migrate`).
      transactional: true,
      allOrNothing: true,
    },
    // Triggers and functions are written in migrations (triggers keep a copy table in step, with
    // transition tables the entity definitions cannot express; functions key an expression index
    // of the access log), not declared to the ORM; without this the schema comparison would
    // read them as drift to drop.
    schemaGenerator: { ignoreTriggers: true, ignoreRoutines: true },
    pool: { min: 0, max: poolSize, idleTimeoutMillis: 30_000 },
    discovery: { warnWhenNoEntities: false },
    // MikroORM converts dates to UTC itself and sends no SET TIME ZONE: nothing a transaction-mode
    // pooler could lose between transactions.
    forceUtcTimezone: true,
    allowGlobalContext: false,
    onQuery: countStatement,
    debug: false,
  };
}

export async function openDatabase(
  url: string,
  entities: EntityList,
  poolSize?: number,
  replicas: ReplicaOptions = {},
): Promise<Orm> {
  return MikroORM.init(ormOptions(url, entities, poolSize, replicas));
}

/** The advisory lock every Islet instance takes to migrate (pg_advisory_lock's two-key form). */
const MIGRATION_LOCK = { space: 0x15_1e7, key: 1 };

/**
 * Applies pending migrations; returns the names applied. Instances starting together on one
 * database take turns: the first holds a session-level advisory lock on a connection of its
 * own while it migrates, the others wait for it and then find nothing left to apply. A process
 * that dies while migrating ends its session, and with it the lock. The lock's connection goes to
 * `directUrl` (DATABASE_DIRECT_URL): through a transaction-mode pooler, a session-level lock would
 * stay on whichever server connection took it, held after this client left.
 */
export async function migrate(orm: Orm, directUrl = orm.config.get('clientUrl')): Promise<string[]> {
  const lock = new pg.Client({ connectionString: directUrl });
  await lock.connect();
  try {
    await lock.query('select pg_advisory_lock($1, $2)', [MIGRATION_LOCK.space, MIGRATION_LOCK.key]);
    const applied = await orm.migrator.up();
    return applied.map((migration) => migration.name);
  } finally {
    await lock.end();
  }
}

/** SQL needed to bring the database to the entities' shape: empty when migrations match the code. */
export async function schemaDrift(orm: Orm): Promise<string> {
  return (await orm.schema.getUpdateSchemaSQL({ wrap: false })).trim();
}

/**
 * Runs `sql` with `$1`, `$2`… parameters bound by the driver, inside `em`'s transaction when it
 * has one, counted like every other statement. MikroORM's `execute` inlines each parameter into
 * the SQL text (escaping it on the client, then PostgreSQL parses it back): for bulk writes of
 * large arrays that cost as much as the insert. MikroORM 7 runs on Kysely, and its transaction
 * context is a Kysely transaction; orm.test.ts fails if an upgrade changes that.
 */
export async function executeBound(
  em: EntityManager,
  sql: string,
  params: readonly unknown[],
): Promise<{ rows: Record<string, unknown>[]; affectedRows: number }> {
  countStatement(sql, params);
  const runner: Kysely<unknown> | Transaction<unknown> =
    em.getTransactionContext<Transaction<unknown>>() ?? em.getConnection().getClient<unknown>();
  const result = await runner.executeQuery<Record<string, unknown>>(CompiledQuery.raw(sql, [...params]));
  return { rows: result.rows, affectedRows: Number(result.numAffectedRows ?? 0) };
}

/** Connections the prepared statements of an ORM (keyed by its configuration) run on instead of its pool. */
const preparedPools = new WeakMap<object, pg.Pool>();

/** Few: the access log's writer groups a moment's reads into one INSERT, run one batch at a time per instance. */
const PREPARED_POOL_SIZE = 2;

/**
 * Sends `executePrepared`'s statements to `directUrl` (DATABASE_DIRECT_URL), on a small pool of
 * its own, when it is not the ORM's own URL. Behind a transaction-mode pooler (PgBouncer keeps
 * prepared statements only from 1.21, with max_prepared_statements set), a statement prepared on
 * one server connection is missing on the next. Returns what closes that pool; on the ORM's own URL there is nothing to close.
 */
export async function routePreparedStatements(orm: Orm, directUrl: string): Promise<() => Promise<void>> {
  if (directUrl === orm.config.get('clientUrl')) return async () => undefined;
  const ormPool = await orm.em.getConnection().getNativeClient();
  // The ORM's type parsers, so rows read the same on either path.
  const pool = new pg.Pool({
    connectionString: directUrl,
    max: PREPARED_POOL_SIZE,
    idleTimeoutMillis: 30_000,
    types: ormPool.options.types,
  });
  // An idle connection the server ended: the pool drops it and the next statement opens another;
  // without a listener, pg's 'error' event would end the process.
  pool.on('error', () => undefined);
  preparedPools.set(orm.config, pool);
  return async () => {
    preparedPools.delete(orm.config);
    await pool.end();
  };
}

/**
 * Runs `sql` as the prepared statement `name`, outside any transaction, counted like every other
 * statement: PostgreSQL parses and plans it once per connection instead of at every run. For a
 * statement run very often (the access log's INSERT: in pgbench, parsing and planning were 45% of
 * an 8-row insert's time). It runs on the pool `routePreparedStatements` set up, else on the
 * ORM's pg Pool (`getNativeClient`, public API), so the ORM's connection limit still holds.
 */
export async function executePrepared(
  em: EntityManager,
  name: string,
  sql: string,
  params: readonly unknown[],
): Promise<{ rows: Record<string, unknown>[]; affectedRows: number }> {
  countStatement(sql, params);
  const pool = preparedPools.get(em.config) ?? (await em.getConnection().getNativeClient());
  const result = await pool.query<Record<string, unknown>>({ name, text: sql, values: [...params] });
  return { rows: result.rows, affectedRows: result.rowCount ?? 0 };
}

/**
 * Runs a read that most requests make as the prepared statement `name` on the ORM's own pool:
 * PostgreSQL parses and plans it once per connection (in pgbench, planning was half to four
 * fifths of such a read's time). Inside a transaction it runs there, bound but unnamed, so it sees
 * the transaction's writes; so it does when prepared statements are routed to DATABASE_DIRECT_URL,
 * as behind a transaction-mode pooler a name prepared on one server connection is missing on the next.
 */
export async function executeReusable(
  em: EntityManager,
  name: string,
  sql: string,
  params: readonly unknown[],
): Promise<Record<string, unknown>[]> {
  if (em.getTransactionContext() || preparedPools.has(em.config)) return (await executeBound(em, sql, params)).rows;
  countStatement(sql, params);
  const pool = await em.getConnection().getNativeClient();
  return (await pool.query<Record<string, unknown>>({ name, text: sql, values: [...params] })).rows;
}

/** Shows the ORM's connection pool at /metrics (open, in use, waiting) until the returned function runs. */
export async function meterDatabasePool(orm: Orm): Promise<() => void> {
  return meterPool(await orm.em.getConnection().getNativeClient());
}
