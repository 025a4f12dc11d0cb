import { AsyncLocalStorage } from 'node:async_hooks';
import { LRUCache } from 'lru-cache';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { Orm } from '../../infra/database/orm';
import { sqlOutsideTransactions } from '../../infra/database/sql-outside-transactions';
import type { SqlRunner } from '../../infra/database/sql-runner';

type Row = { payload: AdapterPayload };

/** The models a token grant consumes: what it exchanges for tokens. */
const GRANT_SOURCES = new Set(['AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest']);

/**
 * Within a request run by `consumeOnSuccess` (consume-on-success.ts), the grant sources it
 * consumed, to be marked consumed only once it has delivered its tokens.
 */
export const deferredConsumes = new AsyncLocalStorage<(() => Promise<void>)[]>();

/**
 * oidc-provider's storage on PostgreSQL, one instance per realm and model. `consume` keeps the
 * record (marked consumed) because refresh-token reuse detection depends on finding it again.
 * Expired rows are ignored on read and removed by `sweepExpired`. Its statements join no
 * transaction: oidc-provider expects what it stores to be stored at once.
 */
export class PostgresAdapter implements Adapter {
  private readonly clients = new LRUCache<string, Promise<AdapterPayload | undefined>>({ max: 1000, ttl: 10_000 });
  private readonly sql: SqlRunner;

  constructor(
    orm: Orm,
    private readonly realm: string,
    private readonly model: string,
    /** Told whenever a grant is destroyed: logout, revocation, refresh-token reuse. */
    private readonly onGrantDestroyed: (realm: string, grantId: string) => Promise<void>,
  ) {
    this.sql = sqlOutsideTransactions(orm);
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    const expiresAt = expiresIn ? new Date(Date.now() + expiresIn * 1000) : null;
    await this.sql.run(
      `insert into oidc_records (realm, model, id, payload, grant_id, account_id, uid, expires_at)
       values (?, ?, ?, ?, ?, ?, ?, ?)
       on conflict (realm, model, id) do update
       set payload = excluded.payload, grant_id = excluded.grant_id, account_id = excluded.account_id,
           uid = excluded.uid, expires_at = excluded.expires_at`,
      [
        this.realm,
        this.model,
        id,
        JSON.stringify(payload),
        payload.grantId ?? null,
        payload.accountId ?? null,
        payload.uid ?? null,
        expiresAt,
      ],
    );
  }

  private async findWhere(column: 'id' | 'uid', value: string): Promise<AdapterPayload | undefined> {
    // No record id holds a NUL (PostgreSQL cannot store one): such an id names nothing.
    if (typeof value !== 'string' || value.includes('\u0000')) return undefined;
    const rows = await this.sql.rows<Row>(
      `select payload from oidc_records
       where realm = ? and model = ? and ${column} = ? and (expires_at is null or expires_at > now())
       limit 1`,
      [this.realm, this.model, value],
    );
    return rows[0]?.payload;
  }

  find(id: string): Promise<AdapterPayload | undefined> {
    if (this.model !== 'Client') return this.findWhere('id', id);
    // oidc-provider looks its client up on every token request; clients only change at start-up.
    const cached = this.clients.get(id);
    if (cached) return cached;
    const found = this.findWhere('id', id);
    this.clients.set(id, found);
    // A failed lookup (the database away) is not remembered as the answer.
    found.catch(() => this.clients.delete(id));
    return found;
  }

  findByUid(uid: string): Promise<AdapterPayload | undefined> {
    return this.findWhere('uid', uid);
  }

  async findByUserCode(): Promise<undefined> {
    return undefined;
  }

  async consume(id: string): Promise<void> {
    const deferred = GRANT_SOURCES.has(this.model) ? deferredConsumes.getStore() : undefined;
    if (deferred) deferred.push(() => this.consumeNow(id));
    else await this.consumeNow(id);
  }

  private async consumeNow(id: string): Promise<void> {
    await this.sql.run(
      `update oidc_records set consumed_at = now(),
         payload = jsonb_set(payload, '{consumed}', to_jsonb(extract(epoch from now())::bigint))
       where realm = ? and model = ? and id = ?`,
      [this.realm, this.model, id],
    );
  }

  async destroy(id: string): Promise<void> {
    await this.sql.run('delete from oidc_records where realm = ? and model = ? and id = ?', [
      this.realm,
      this.model,
      id,
    ]);
    if (this.model === 'Grant') await this.onGrantDestroyed(this.realm, id);
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await this.sql.run('delete from oidc_records where realm = ? and model = ? and grant_id = ?', [
      this.realm,
      this.model,
      grantId,
    ]);
  }
}

/** Deletes records past their expiry; run periodically by the auth module. */
export async function sweepExpired(orm: Orm): Promise<number> {
  return sqlOutsideTransactions(orm).run('delete from oidc_records where expires_at < now()');
}

/** One login session (OIDC grant) of one realm. */
export interface GrantRef {
  realm: string;
  grantId: string;
}

/**
 * Ends every session of an account in every realm (the account is being deleted, or its
 * password changed): its grants, browser sessions, refresh tokens and codes go, and its access
 * tokens stop working at once. `keep` spares one session: its grant, the records issued for
 * it, and the browser session that holds it.
 */
export async function endSessionsOfAccount(
  orm: Orm,
  accountId: string,
  onGrantDestroyed: (realm: string, grantId: string) => Promise<void>,
  keep: GrantRef | null = null,
): Promise<void> {
  // coalesce: most records have no grant_id, and a NULL here would spare them all.
  const spared = `not coalesce(realm = ? and (
      (model = 'Grant' and id = ?) or grant_id = ?
      or (model = 'Session' and exists (
        select 1 from jsonb_each(coalesce(payload->'authorizations', '{}'::jsonb)) as held
        where held.value->>'grantId' = ?))), false)`;
  const removed = await sqlOutsideTransactions(orm).rows<{ realm: string; model: string; id: string }>(
    `delete from oidc_records where account_id = ?${keep ? ` and ${spared}` : ''} returning realm, model, id`,
    keep ? [accountId, keep.realm, keep.grantId, keep.grantId, keep.grantId] : [accountId],
  );
  for (const record of removed) if (record.model === 'Grant') await onGrantDestroyed(record.realm, record.id);
}
