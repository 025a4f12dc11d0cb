import type { EntityManager } from '@mikro-orm/postgresql';

/** What runs a request's statements: its unit of work, forked when first used (see src/http/authenticate.ts). */
export interface UnitOfWorkHolder {
  em: EntityManager;
  /** The entity manager units of work are forked from, while this request has none of its own. */
  sharedEm?(): EntityManager | undefined;
}

/**
 * Where a repository's hand-written statement runs for the request: its unit of work once it has
 * one, else the entity manager units of work are forked from, which runs a statement outside any
 * transaction just as a fork would. Forking costs more than a one-statement read, so a request
 * that only reads through hand-written SQL (sharing, grants) forks nothing. Never for entities,
 * which belong to a unit of work.
 */
export const sqlReadsOf = (holder: UnitOfWorkHolder): EntityManager => holder.sharedEm?.() ?? holder.em;
