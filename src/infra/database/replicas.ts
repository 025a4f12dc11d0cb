import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { EntityManager, EventSubscriber } from '@mikro-orm/postgresql';
import type { AbstractSqlConnection } from '@mikro-orm/sql';
import pg from 'pg';
import { Counter, Gauge } from 'prom-client';
import { requestScope, type Logger } from '../logger';
import { registry } from '../metrics';
import type { DatabaseEvents } from './events';
import type { Orm } from './orm';
import { replicaConnectionsOf, type ReplicaConnection } from './replica-connections';
import { ReplicaRouting } from './replica-routing';

const replicaLag = new Gauge<'replica'>({
  name: 'islet_replica_lag_seconds',
  help: 'How old a streaming replica’s data was when last probed: the time since the newest primary WAL position it had replayed was current.',
  labelNames: ['replica'],
  registers: [registry],
});

const replicaUp = new Gauge<'replica'>({
  name: 'islet_replica_up',
  help: 'Whether a streaming replica answered its last probe as a standby (1) or not (0).',
  labelNames: ['replica'],
  registers: [registry],
});

const staleReads = new Counter<'served_by' | 'reason'>({
  name: 'islet_replica_reads_total',
  help: 'Reads that tolerate a little staleness, by where they were sent (replica or primary) and why the primary (transaction, wrote_in_request, down, lagging, behind_caller: the reason of the replica most worth a look).',
  labelNames: ['served_by', 'reason'],
  registers: [registry],
});

const replicaSkips = new Counter<'replica' | 'reason'>({
  name: 'islet_replica_skips_total',
  help: 'Times a read passed over a replica, by why: down, lagging (beyond REPLICA_MAX_LAG_MS), behind_caller (not yet replayed the caller’s last write), failed (the read failed on it and ran on the primary).',
  labelNames: ['replica', 'reason'],
  registers: [registry],
});

/** A replica chosen for one read; `failed` reports that the read failed on it (the caller then reads on the primary). */
export interface ReplicaTarget {
  name: string;
  connection: AbstractSqlConnection;
  failed(error: unknown): void;
}

export interface ReplicaMonitorOptions {
  /** REPLICA_MAX_LAG_MS. */
  maxLagMs: number;
  /** Who is calling, for read-your-writes: a stable key of the request's caller, or null (anonymous, background work). */
  callerOf: () => string | null;
  logger: Logger;
  intervalMs?: number;
  probeTimeoutMs?: number;
}

const PRIMARY = 'primary';

/** Where instances announce a caller's committed write to each other: `<instance id> <caller>`. */
export const REPLICA_WRITES_CHANNEL = 'islet_replica_writes';

/**
 * Watches the primary and each streaming replica (every `intervalMs`: the primary's
 * pg_current_wal_lsn(), each replica's pg_last_wal_replay_lsn(), on connections of its own with
 * a timeout) and routes reads that tolerate staleness by replica-routing.ts' rule. Registered on
 * the ORM by routeStaleReads, found by the SQL runner's staleReadsOf(em).
 */
export class ReplicaMonitor {
  readonly routing: ReplicaRouting;
  private readonly clients = new Map<string, pg.Client>();
  private readonly busy = new Set<string>();
  private readonly urls: Map<string, string>;
  private readonly down = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  /** This instance, in its announcements: it ignores its own. */
  readonly instanceId = randomUUID();
  private readonly intervalMs: number;
  private readonly probeTimeoutMs: number;

  constructor(
    primaryUrl: string,
    private readonly replicas: readonly (ReplicaConnection & { url: string })[],
    private readonly options: ReplicaMonitorOptions,
  ) {
    this.intervalMs = options.intervalMs ?? 250;
    this.probeTimeoutMs = options.probeTimeoutMs ?? 2_000;
    this.routing = new ReplicaRouting(
      replicas.map((replica) => replica.name),
      { maxLagMs: options.maxLagMs, probeFreshMs: Math.max(4 * this.intervalMs, 1_500) },
    );
    this.urls = new Map([[PRIMARY, primaryUrl], ...replicas.map((replica) => [replica.name, replica.url] as const)]);
  }

  /** Probes at once, then every intervalMs, until close. */
  start(): Promise<void> {
    this.timer = setInterval(() => void this.probeAll(), this.intervalMs).unref();
    return this.probeAll();
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    const clients = [...this.clients.values()];
    this.clients.clear();
    await Promise.all(clients.map((client) => client.end().catch(() => undefined)));
  }

  /** Where a stale-tolerant read on `em` runs now: a replica, or null for the primary. */
  target(em: EntityManager): ReplicaTarget | null {
    const decision = this.routing.choose(performance.now(), this.options.callerOf(), {
      inTransaction: em.getTransactionContext() !== undefined,
      wroteInRequest: requestScope.getStore()?.wrote === true,
    });
    for (const { replica, reason } of decision.skipped) replicaSkips.inc({ replica, reason });
    if (decision.target === 'primary') {
      staleReads.inc({ served_by: 'primary', reason: decision.reason });
      return null;
    }
    staleReads.inc({ served_by: 'replica', reason: 'current' });
    const replica = this.replicas.find((candidate) => candidate.name === decision.replica)!;
    return {
      name: replica.name,
      connection: replica.connection,
      failed: (error) => {
        this.routing.failed(replica.name, performance.now());
        replicaSkips.inc({ replica: replica.name, reason: 'failed' });
        staleReads.inc({ served_by: 'primary', reason: 'failed' });
        this.options.logger.warn(
          { replica: replica.name, err: error },
          'a read failed on a replica; the primary served it',
        );
      },
    };
  }

  /** A transaction committed: the request and its caller read from the primary until replicas replay it. */
  committed(): void {
    const scope = requestScope.getStore();
    if (scope) scope.wrote = true;
    const caller = this.options.callerOf();
    if (caller !== null) this.routing.wrote(caller, performance.now());
  }

  /**
   * In the committing transaction: tells the other instances that the caller wrote (delivered
   * when it commits, before its answer leaves), so the caller's next request, wherever it lands,
   * reads the primary until a replica has replayed it.
   */
  async announce(tx: EntityManager): Promise<void> {
    const caller = this.options.callerOf();
    if (caller !== null)
      await tx.execute('select pg_notify(?, ?)', [REPLICA_WRITES_CHANNEL, `${this.instanceId} ${caller}`]);
  }

  /** Another instance's announcement (see announce): its caller wrote just now. */
  announced(payload: string): void {
    const space = payload.indexOf(' ');
    if (space <= 0 || payload.slice(0, space) === this.instanceId) return;
    this.routing.wrote(payload.slice(space + 1), performance.now());
  }

  private async probeAll(): Promise<void> {
    await Promise.all([
      this.probe(PRIMARY, "select (pg_current_wal_lsn() - '0/0')::text as lsn", (at, lsn) =>
        this.routing.samplePrimary({ at, lsn: lsn! }),
      ),
      ...this.replicas.map(({ name }) =>
        this.probe(
          name,
          "select case when pg_is_in_recovery() then (pg_last_wal_replay_lsn() - '0/0')::text end as lsn",
          (at, lsn) => this.replicaProbed(name, at, lsn),
        ),
      ),
    ]);
  }

  private replicaProbed(name: string, at: number, lsn: bigint | null): void {
    this.routing.probed(name, { at, replayed: lsn });
    const lag = this.routing.lagMs(name, performance.now());
    replicaUp.set({ replica: name }, lag === null ? 0 : 1);
    if (lag !== null && Number.isFinite(lag)) replicaLag.set({ replica: name }, lag / 1000);
    if (lag === null && !this.down.has(name)) {
      this.down.add(name);
      this.options.logger.warn({ replica: name }, 'a replica is down or not a standby; the primary serves its reads');
    } else if (lag !== null && this.down.delete(name)) {
      this.options.logger.info({ replica: name }, 'a replica is back');
    }
  }

  /** One probe of `name`, unless its previous one is still out; a failure or timeout reads as null. */
  private async probe(name: string, sql: string, record: (at: number, lsn: bigint | null) => void): Promise<void> {
    if (this.busy.has(name) || !this.timer) return;
    this.busy.add(name);
    const at = performance.now();
    try {
      const client = await this.clientOf(name);
      const { rows } = await client.query<{ lsn: string | null }>(sql);
      record(at, rows[0]?.lsn == null ? null : BigInt(rows[0].lsn));
    } catch {
      this.drop(name);
      if (name !== PRIMARY) record(at, null);
    } finally {
      this.busy.delete(name);
    }
  }

  private async clientOf(name: string): Promise<pg.Client> {
    const open = this.clients.get(name);
    if (open) return open;
    const client = new pg.Client({
      connectionString: this.urls.get(name),
      connectionTimeoutMillis: this.probeTimeoutMs,
      query_timeout: this.probeTimeoutMs,
      application_name: 'islet-replica-monitor',
    });
    client.on('error', () => this.drop(name, client));
    this.clients.set(name, client);
    try {
      await client.connect();
    } catch (error) {
      this.drop(name, client);
      throw error;
    }
    return client;
  }

  private drop(name: string, client = this.clients.get(name)): void {
    if (!client || this.clients.get(name) !== client) return;
    this.clients.delete(name);
    client.end().catch(() => undefined);
  }
}

/** The monitor of each ORM's driver (one per opened ORM: tests run several in a process). */
const monitors = new WeakMap<object, ReplicaMonitor>();

/**
 * Starts routing `orm`'s stale-tolerant reads to its replicas (none configured: returns null and
 * every read stays on the primary), and tracks committed transactions for read-your-writes,
 * announcing them to the other instances through `events` when given (which must not have
 * started yet: it listens to the channels subscribed before it starts).
 */
export async function routeStaleReads(
  orm: Orm,
  options: ReplicaMonitorOptions,
  events?: Pick<DatabaseEvents, 'on'>,
): Promise<ReplicaMonitor | null> {
  const connections = replicaConnectionsOf(orm.em);
  if (!connections.length) return null;
  const configured = orm.config.get('replicas') ?? [];
  const replicas = connections.map((replica, index) => ({ ...replica, url: configured[index]!.clientUrl! }));
  const monitor = new ReplicaMonitor(orm.config.get('clientUrl')!, replicas, options);
  const subscriber: EventSubscriber = {
    afterTransactionCommit: () => monitor.committed(),
    ...(events && { beforeTransactionCommit: ({ em }) => monitor.announce(em as EntityManager) }),
  };
  events?.on(REPLICA_WRITES_CHANNEL, (payload) => monitor.announced(payload));
  orm.em.getEventManager().registerSubscriber(subscriber);
  monitors.set(orm.em.getDriver(), monitor);
  await monitor.start();
  return monitor;
}

/** The replica a stale-tolerant read on `em` should use now, or null for the primary. */
export function replicaFor(em: EntityManager): ReplicaTarget | null {
  return monitors.get(em.getDriver())?.target(em) ?? null;
}
