import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, forbidden, notFound, unauthenticated } from '../../kernel/errors';
import { isAuthenticated } from '../../kernel/principal';
import type { Scope } from '../../kernel/scope';
import { assertEmail, assertEmails, assertUserId } from '../../kernel/validation';
import type { AccessPolicy } from '../permissions/access-policy';
import type { UserRecord } from './user.entity';
import { deleteUser } from './users.repository';
import { userLoader } from './users.loaders';
import type { AccountAddress, UsersService } from './users.service';

export interface CustodialAccount {
  username?: string | null;
  emails?: string[] | null;
}

/** What a deletion hook leaves to do once the account's deletion has committed (removing bytes). */
export type AfterDeletion = () => Promise<void>;

/**
 * Runs inside the transaction that deletes an account, after its row is gone: each domain
 * removes what it holds (through `scope.em`, that transaction) and may return a step to run
 * once the deletion has committed. `addresses` are the account's login addresses (username and
 * emails, lower-cased) with when each became its own, for what a domain holds by address
 * (clinician invitations).
 */
export type UserDeletionHook = (
  scope: Scope,
  userId: string,
  addresses: readonly AccountAddress[],
) => Promise<AfterDeletion | void>;

/** Gives the custodian of a new custodial account its permissions (the permissions domain). */
export type GrantCustodianship = (em: EntityManager, custodianId: string, accountId: string) => Promise<void>;

/** The addresses an account logs in with: its username and emails, lower-cased, each once. */
export function accountAddresses(user: Pick<UserRecord, 'username' | 'emails'>): string[] {
  return [...new Set([user.username, ...user.emails].filter((email) => !!email).map((email) => email!.toLowerCase()))];
}

/** Accounts coming and going: custodial accounts, and deletion with everything attached. */
export class AccountLifecycleService {
  private readonly deletionHooks: UserDeletionHook[] = [];
  private readonly preludes: ((userId: string) => Promise<void>)[] = [];

  constructor(
    private readonly users: UsersService,
    private readonly access: AccessPolicy,
    private readonly grantCustodianship: GrantCustodianship,
  ) {}

  /** Registers what another domain must remove when an account is deleted. */
  onDelete(hook: UserDeletionHook): void {
    this.deletionHooks.push(hook);
  }

  /**
   * Registers what must happen before an account's deletion begins (ending its sessions). It
   * runs outside the deletion's transaction: that transaction may hold back uploads waiting on
   * the account, each holding a pooled connection, so nothing inside it may need another one.
   */
  beforeDelete(prelude: (userId: string) => Promise<void>): void {
    this.preludes.push(prelude);
  }

  /**
   * An account without a login, managed by `custodianId`, who gets custodian, view and upload
   * permissions on it. The custodian itself or a server may create one. Its roles stay empty:
   * the specification allows `clinic` alone there, so the custodial relation shows where
   * Tidepool clients read it, as the custodian's `custodian` permission on the account.
   */
  async createCustodial(scope: Scope, custodianId: string, input: CustodialAccount): Promise<UserRecord> {
    assertUserId(custodianId);
    await this.access.assertAllowed(scope, custodianId, 'owner-only');
    if (!(await this.users.existing(scope, [custodianId])).has(custodianId)) throw notFound('User not found');
    if (input.username != null) assertEmail(input.username, 'username');
    const emails = input.emails ?? (input.username ? [input.username] : []);
    if (input.emails != null) assertEmails(input.emails, 'emails', { allowEmpty: false });
    return scope.em.transactional(async (tx) => {
      const user = await this.users.insert(
        tx,
        { username: input.username ?? null, emails, roles: [] },
        scope.principal.userId,
      );
      await this.grantCustodianship(tx, custodianId, user.id);
      return user;
    });
  }

  /**
   * Deletes an account and everything the domains hold for it. The owner must confirm with its
   * current password; a custodian (through a clinic: the clinic's admins) or a server token
   * need none. Deleting an account that is already gone succeeds for servers (idempotent).
   */
  async delete(scope: Scope, userId: string, password: string | null | undefined): Promise<void> {
    assertUserId(userId);
    const { principal } = scope;
    if (!isAuthenticated(principal)) throw unauthenticated();
    const user = await userLoader(scope).load(userId);
    if (!user) {
      if (principal.isServer) return;
      throw forbidden();
    }
    if (principal.userId === user.id && !principal.isServer) {
      const confirmed =
        typeof password === 'string' && password !== '' && (await this.users.isOwnPassword(scope, user, password));
      if (!confirmed) throw new AppError('PASSWORD_REQUIRED', 'Missing id and/or password');
    } else {
      // Custodian through a clinic deletes only for the clinic's admins (the access policy's clinic control).
      await this.access.assertAllowed(scope, user.id, 'account-control');
    }
    for (const prelude of this.preludes) await prelude(user.id);
    // The row goes first: from then on a concurrent upload's record transaction either finished
    // before (and its record is removed by the hooks below) or finds no account and is undone.
    this.users.willChange(user.id);
    const afterCommit = await scope.em.transactional(async (tx) => {
      const addresses = await this.users.addressesOf(tx, user.id);
      await deleteUser(tx, user.id);
      const steps: AfterDeletion[] = [];
      for (const hook of this.deletionHooks) {
        const step = await hook({ ...scope, em: tx }, user.id, addresses);
        if (step) steps.push(step);
      }
      return steps;
    });
    userLoader(scope).clear(user.id);
    for (const step of afterCommit) await step();
  }
}
