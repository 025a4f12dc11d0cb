import type { Orm } from './orm';
import { sqlOf, type SqlRunner } from './sql-runner';

/**
 * A runner that joins no transaction: on a fresh fork of the ORM's entity manager, whose
 * statements run on a pooled connection of their own even when the caller is inside a
 * transaction (the global entity manager would join the transaction its caller is in). For what
 * must happen at once and for good whatever the caller's transaction does: oidc-provider's
 * storage, ending sessions, announcements to other instances, sign-in throttling, readiness.
 */
export const sqlOutsideTransactions = (orm: Orm): SqlRunner => sqlOf(orm.em.fork());
