import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Inside a transaction that records something an account owns: whether the account still
 * exists, held until that transaction ends, so an account deletion cannot slip in between
 * (UsersService.holdExisting).
 */
export type HoldAccount = (tx: EntityManager, userId: string) => Promise<boolean>;
