import type { DatabaseEvents } from '../infra/database/events';
import type { Orm } from '../infra/database/orm';
import { sqlOutsideTransactions } from '../infra/database/sql-outside-transactions';
import type { SqlRunner } from '../infra/database/sql-runner';
import type { Logger } from '../infra/logger';

const CHANNEL = 'islet_session_revoked';
const PRUNE_MS = 60_000;

/**
 * Which login sessions (OIDC grants) have ended, known to every instance without a query per
 * request: revocations are written to `revoked_sessions`, announced with NOTIFY, and each
 * instance keeps the recent ones in memory. A revocation only has to outlive the access tokens
 * already issued for the session, so rows expire after the longest access-token lifetime.
 */
export class SessionRevocations {
  private readonly revoked = new Map<string, number>();
  private pruner: NodeJS.Timeout | undefined;
  /** Outside any transaction: a revocation is recorded and announced at once, whatever the caller's transaction does. */
  private readonly sql: SqlRunner;

  constructor(
    orm: Orm,
    events: DatabaseEvents,
    private readonly accessTokenTtl: number,
    private readonly logger: Logger,
  ) {
    this.sql = sqlOutsideTransactions(orm);
    events.on(CHANNEL, (key) => this.remember(key, Date.now() + this.accessTokenTtl * 1000));
    events.onConnect(() => this.reload());
  }

  start(): void {
    this.pruner = setInterval(() => this.prune(), PRUNE_MS).unref();
  }

  isRevoked(realm: string, key: string): boolean {
    const until = this.revoked.get(`${realm}:${key}`);
    return until !== undefined && until > Date.now();
  }

  /** Ends a session (or one token) for every instance: recorded, announced, and known here at once. */
  async revoke(realm: string, key: string): Promise<void> {
    const entry = `${realm}:${key}`;
    this.remember(entry, Date.now() + this.accessTokenTtl * 1000);
    await this.sql.rows(
      `with recorded as (
         insert into revoked_sessions (realm, grant_id, expires_at) values (?, ?, now() + make_interval(secs => ?))
         on conflict (realm, grant_id) do update set expires_at = excluded.expires_at
         returning 1)
       select pg_notify(?, ?) from recorded`,
      [realm, key, this.accessTokenTtl, CHANNEL, entry],
    );
  }

  close(): void {
    clearInterval(this.pruner);
  }

  private remember(entry: string, until: number): void {
    this.revoked.set(entry, Math.max(until, this.revoked.get(entry) ?? 0));
  }

  /** Everything revoked recently, in case an announcement was missed while disconnected. */
  private async reload(): Promise<void> {
    const rows = await this.sql.rows<{ entry: string; until: Date }>(
      `select realm || ':' || grant_id as entry, expires_at as until from revoked_sessions where expires_at > now()`,
    );
    for (const row of rows) this.remember(row.entry, new Date(row.until).getTime());
  }

  private prune(): void {
    const now = Date.now();
    for (const [entry, until] of this.revoked) if (until <= now) this.revoked.delete(entry);
    this.sql
      .run('delete from revoked_sessions where expires_at < now()')
      .catch((error: unknown) => this.logger.warn({ err: error }, 'pruning revoked sessions failed'));
  }
}
