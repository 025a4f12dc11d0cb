import { NoticedCache, type Notices } from '../../infra/database/noticed-cache';
import { Loader } from '../../kernel/loader';
import type { PageArgs } from '../../kernel/paging';
import type { Scope } from '../../kernel/scope';
import { sqlReadsOf } from '../../kernel/units-of-work';
import type { Grant } from './permission.model';
import { grantPagesOf, type GrantRow } from './permissions.repository';

/** The channel on which the permission_grants table's trigger names each grantee whose grants changed. */
export const GRANTS_CHANGED_CHANNEL = 'islet_grants_changed';

/**
 * Above this many received grants an account's are not kept (a service account receiving every
 * patient's): reading them all to answer one would cost more than the statements they save.
 */
export const MAX_KEPT_GRANTS = 1_000;
/** The grants kept in all, over every account (a few megabytes): the least recently read go first. */
const MAX_KEPT_ROWS = 50_000;

/** Every grant an account received, in PostgreSQL's order of sharer ids, and by sharer id. */
interface Received {
  rows: GrantRow[];
  bySharer: ReadonlyMap<string, Grant>;
}

/** Kept for an account with more than MAX_KEPT_GRANTS, so they are not read in full again. */
const TOO_MANY: Received = { rows: [], bySharer: new Map() };

const receivedOf = (rows: GrantRow[]): Received => ({
  rows,
  bySharer: new Map(rows.map((row) => [row.sharer_id, { permissions: row.permissions, clinicId: row.clinic_id }])),
});

/**
 * The grants each account received, kept between requests: a dashboard lists them
 * (`sharedBy`, `GET /access/groups/{userid}`) on every visit, and checks its access to each
 * sharer. The permission_grants table's trigger
 * (migrations/Migration20261128200000_grant_notices.ts) names each grantee whose grants changed;
 * NoticedCache says how that reaches every instance, and the grantee's kept grants are read again
 * from the primary.
 *
 * What is kept lists shares and refuses, never admits: the access policy (access-policy.ts) lets
 * a caller in only on a grant read from the table in the same request, so a share ended on
 * another instance is never honoured from memory. One begun on another instance is refused for
 * the notice's delay (milliseconds), and this instance reads a grantee's grants from the table
 * for ten seconds after giving it one (`changing`).
 */
export class ReceivedGrants {
  private readonly kept: NoticedCache<Received>;

  constructor(notices: Notices) {
    this.kept = new NoticedCache<Received>(notices, {
      channel: GRANTS_CHANGED_CHANNEL,
      max: 10_000,
      maxSize: MAX_KEPT_ROWS,
      sizeOf: (received) => received.rows.length,
    });
  }

  /**
   * The grants the account received, by sharer id, batched per request; null where they are not
   * kept (too many, or inside a transaction, which reads its own writes from the table).
   */
  async of(scope: Scope, granteeId: string): Promise<ReadonlyMap<string, Grant> | null> {
    return (await this.receivedBy(scope, granteeId))?.bySharer ?? null;
  }

  /**
   * A page of the account's received grants as grantPagesOf answers it (by sharer id, one more
   * than asked), and how many there are; null where they are not kept, or the page follows a
   * sharer no longer among them (the table then says where the next page starts, in its collation).
   */
  async page(scope: Scope, granteeId: string, args: PageArgs): Promise<{ rows: GrantRow[]; count: number } | null> {
    const received = await this.receivedBy(scope, granteeId);
    if (!received) return null;
    const { rows } = received;
    const start = args.after ? rows.findIndex((row) => row.sharer_id === args.after![0]) + 1 : 0;
    if (start === 0 && args.after) return null;
    return { rows: rows.slice(start, start + args.first + 1), count: rows.length };
  }

  /** Before this instance gives the account a grant: read from the table until the change settles. */
  changing(granteeId: string): void {
    this.kept.changing(granteeId);
  }

  private receivedBy(scope: Scope, granteeId: string): Promise<Received | null> {
    const em = sqlReadsOf(scope);
    if (em.isInTransaction()) return Promise.resolve(null);
    const loader = scope.loaders.get('permissions.received', () => {
      return new Loader<string, Received | null>(async (ids) => {
        const read = await this.kept.read(ids, async (missing) => {
          const rows = await grantPagesOf(em, 'grantee_id', missing, { first: MAX_KEPT_GRANTS, after: null });
          const byGrantee = new Map(missing.map((id) => [id, [] as GrantRow[]]));
          for (const row of rows) byGrantee.get(row.grantee_id)!.push(row);
          return new Map(
            [...byGrantee].map(([id, received]) => [
              id,
              received.length > MAX_KEPT_GRANTS ? TOO_MANY : receivedOf(received),
            ]),
          );
        });
        return ids.map((id) => (read.get(id) === TOO_MANY ? null : read.get(id)!));
      });
    });
    return loader.load(granteeId);
  }
}
