import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The service's one Prometheus registry and its metrics, served at `GET /metrics`. Labels
 * name kinds of things (where a password was checked, what was locked), never who: no login
 * names, addresses or ids, which would leak personal data and grow without bound.
 */
export const registry = new Registry();

/** Where a password is checked (or, for a sign-up, hashed). */
export type PasswordPath = 'login_page' | 'legacy_login' | 'password_grant' | 'current_password' | 'sign_up';

/** What repeated failures lock: one account from one source, a source, or an account under attack. */
export type LockKind = 'account_source' | 'source' | 'account';

export const loginFailures = new Counter<'path' | 'reason'>({
  name: 'islet_login_failures_total',
  help: 'Refused password checks, by where the password was checked and why (invalid_credentials, locked, or rate_limited: the password budget was spent).',
  labelNames: ['path', 'reason'],
  registers: [registry],
});

export const loginLockouts = new Counter<'path' | 'lock'>({
  name: 'islet_login_lockouts_total',
  help: 'Lockouts started by repeated failed password checks, by where the last one was checked and what was locked.',
  labelNames: ['path', 'lock'],
  registers: [registry],
});

export const passwordHashes = new Counter({
  name: 'islet_password_hashes_total',
  help: 'argon2id hashes computed: password checks (decoys included) and new passwords.',
  registers: [registry],
});

export const passwordBudgetRate = new Gauge({
  name: 'islet_password_budget_per_second',
  help: 'Password hashes per second this instance admits in all (PASSWORD_CHECKS_PER_SECOND, else measured at start-up); one source gets half.',
  registers: [registry],
});

export const accessLogEntriesLost = new Counter<'reason'>({
  name: 'islet_access_log_entries_lost_total',
  help: 'Access log entries never written, by reason: refused (PostgreSQL refused the entry on its own; each is logged with its request id) or shutdown (still queued when stopping gave up).',
  labelNames: ['reason'],
  registers: [registry],
});

export const liveSubscriptions = new Gauge<'topic'>({
  name: 'islet_live_subscriptions',
  help: 'GraphQL subscriptions this process serves over WebSocket, by what they follow (user or clinic).',
  labelNames: ['topic'],
  registers: [registry],
});

// Process metrics (CPU, memory, handles, GC) and the event loop's lag, under the service's prefix.
collectDefaultMetrics({ register: registry, prefix: 'islet_' });

export const httpRequests = new Counter<'route' | 'method' | 'status'>({
  name: 'islet_http_requests_total',
  help: 'HTTP requests by route template (never the raw path), method and status.',
  labelNames: ['route', 'method', 'status'],
  registers: [registry],
});

export const httpRequestDuration = new Histogram<'route' | 'method'>({
  name: 'islet_http_request_duration_seconds',
  help: 'How long HTTP requests took, by route template and method.',
  labelNames: ['route', 'method'],
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [registry],
});

export const graphqlOperations = new Counter<'operation' | 'type' | 'outcome'>({
  name: 'islet_graphql_operations_total',
  help: 'GraphQL operations by name (the first 200 names seen; later ones count as "other"), type and outcome (ok or error).',
  labelNames: ['operation', 'type', 'outcome'],
  registers: [registry],
});

export const tokenGrants = new Counter<'realm' | 'grant_type' | 'outcome'>({
  name: 'islet_token_grants_total',
  help: 'Token endpoint requests by realm, grant type and outcome (success or the OAuth error code).',
  labelNames: ['realm', 'grant_type', 'outcome'],
  registers: [registry],
});

export const objectStoreCalls = new Counter<'operation' | 'outcome'>({
  name: 'islet_object_store_calls_total',
  help: 'Object store calls by operation and outcome (ok or error).',
  labelNames: ['operation', 'outcome'],
  registers: [registry],
});

export const objectStoreBytes = new Counter<'direction'>({
  name: 'islet_object_store_bytes_total',
  help: 'Bytes written to (in) and read from (out) the object store.',
  labelNames: ['direction'],
  registers: [registry],
});

export const glucoseReadingsIngested = new Counter({
  name: 'islet_glucose_readings_ingested_total',
  help: 'Glucose readings stored by uploads (duplicates the deduplicator dropped not counted).',
  registers: [registry],
});

export const glucoseSummaryLag = new Histogram({
  name: 'islet_glucose_summary_lag_seconds',
  help: 'From the upload that made a summary outdated to the summary brought up to date.',
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300],
  registers: [registry],
});

export const mailsSent = new Counter<'kind'>({
  name: 'islet_mails_sent_total',
  help: 'Mails handed to the SMTP server (or, without SMTP_URL, written to the outbox folder), by kind.',
  labelNames: ['kind'],
  registers: [registry],
});

export const mailSendFailures = new Counter<'kind'>({
  name: 'islet_mail_send_failures_total',
  help: 'Attempts to send a mail that failed, by kind; each failed mail is tried again after a backoff.',
  labelNames: ['kind'],
  registers: [registry],
});

export const mailsAbandoned = new Counter({
  name: 'islet_mails_abandoned_total',
  help: 'Mails given up on: still unsent when they left the outbox after days of failed attempts (each is logged).',
  registers: [registry],
});

/** How each mail outbox of this process reads its queue (a test runs several services in one). */
const mailQueues = new Set<() => Promise<{ queued: number; oldestSeconds: number }>>();

/**
 * Sums the queues' counts and keeps their oldest age; undefined when a queue cannot be read
 * (the database is away), so the gauges keep their last values instead of showing an empty queue.
 */
async function mailQueueState(): Promise<{ queued: number; oldestSeconds: number } | undefined> {
  const states = await Promise.all([...mailQueues].map((read) => read().catch(() => undefined)));
  if (states.some((state) => state === undefined)) return undefined;
  return {
    queued: states.reduce((sum, state) => sum + state!.queued, 0),
    oldestSeconds: Math.max(0, ...states.map((state) => state!.oldestSeconds)),
  };
}

export const mailsQueued = new Gauge({
  name: 'islet_mails_queued',
  help: 'Mails in the outbox not sent yet (due or waiting for a retry).',
  registers: [registry],
  async collect() {
    const state = await mailQueueState();
    if (state) this.set(state.queued);
  },
});

export const mailOldestQueuedAge = new Gauge({
  name: 'islet_mail_oldest_queued_seconds',
  help: 'Age of the oldest mail in the outbox not sent yet (0 when none waits).',
  registers: [registry],
  async collect() {
    const state = await mailQueueState();
    if (state) this.set(state.oldestSeconds);
  },
});

/** Counts the outbox `read` reads in the queue gauges until the returned function is called. */
export function meterMailQueue(read: () => Promise<{ queued: number; oldestSeconds: number }>): () => void {
  mailQueues.add(read);
  return () => mailQueues.delete(read);
}

/** The database pools of this process (a test runs several services in one). */
const pools = new Set<{ totalCount: number; idleCount: number; waitingCount: number }>();

/** Pool connections: open, in use and requests waiting for one. */
export const databasePoolConnections = new Gauge<'state'>({
  name: 'islet_database_pool_connections',
  help: 'Database pool connections: open (total), in use, and requests waiting for one.',
  labelNames: ['state'],
  registers: [registry],
  collect() {
    let total = 0;
    let idle = 0;
    let waiting = 0;
    for (const pool of pools) {
      total += pool.totalCount;
      idle += pool.idleCount;
      waiting += pool.waitingCount;
    }
    this.set({ state: 'total' }, total);
    this.set({ state: 'in_use' }, total - idle);
    this.set({ state: 'waiting' }, waiting);
  },
});

/** Counts `pool` in the pool gauge until the returned function is called (when it closes). */
export function meterPool(pool: { totalCount: number; idleCount: number; waitingCount: number }): () => void {
  pools.add(pool);
  return () => pools.delete(pool);
}

/** A label value from a bounded set: the first `max` distinct values seen, then "other". */
export function boundedLabel(max: number): (value: string) => string {
  const seen = new Set<string>();
  return (value) => {
    if (seen.has(value)) return value;
    if (seen.size >= max) return 'other';
    seen.add(value);
    return value;
  };
}
