import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from './errors';
import { assertBelowQuota, holdBelowQuota, type CountedObjects, type ObjectQuotas } from './quota';
import type { UploadsInFlight } from './uploads-in-flight';
import type { Scope } from './scope';

/** Which of these accounts exist (UsersService.existing). */
export type AccountsExist = (scope: Scope, ids: readonly string[]) => Promise<Set<string>>;

/**
 * Inside a transaction that records something an account owns: whether the account still
 * exists, held until that transaction ends, so an account deletion cannot slip in between
 * (UsersService.holdExisting).
 */
export type HoldAccount = (tx: EntityManager, userId: string) => Promise<boolean>;

/** The account checks of a new object: cheap before the bytes, binding when the record is written. */
export interface OwnerAccounts {
  /**
   * Before the bytes: spares a server a whole upload for an account that does not exist. Others
   * need no query: the owner's token, or the grant that let a caller in, shows it exists.
   */
  assertExists(scope: Scope, userId: string): Promise<void>;
  /** In the record transaction: the account must still exist, and stays until the record commits. */
  assertHeld(tx: EntityManager, userId: string): Promise<void>;
  /** Before the bytes: refuses an account at its quota of `objects`, sparing an upload the binding check refuses. */
  assertRoom(em: EntityManager, userId: string, objects: CountedObjects): Promise<void>;
  /** In the record transaction, before the insert: the account's quota, binding however many race (holdBelowQuota). */
  holdRoom(tx: EntityManager, userId: string, objects: CountedObjects): Promise<void>;
  /** Runs an upload into the account as one of its uploads in flight, a bounded number (UploadsInFlight). */
  uploading<T>(userId: string, upload: () => Promise<T>): Promise<T>;
}

export function ownerAccounts(
  exist: AccountsExist,
  hold: HoldAccount,
  quotas: ObjectQuotas,
  uploads: UploadsInFlight,
): OwnerAccounts {
  return {
    async assertExists(scope, userId) {
      if (!scope.principal.isServer || scope.principal.userId === userId) return;
      if (!(await exist(scope, [userId])).has(userId)) throw notFound(`User ${userId} does not exist`);
    },
    async assertHeld(tx, userId) {
      if (!(await hold(tx, userId))) throw notFound(`User ${userId} was deleted; nothing was stored`);
    },
    assertRoom: (em, userId, objects) => assertBelowQuota(em, objects, userId, quotas[objects.kind]),
    holdRoom: (tx, userId, objects) => holdBelowQuota(tx, objects, userId, quotas[objects.kind]),
    uploading: (userId, upload) => uploads.hold(userId, upload),
  };
}
