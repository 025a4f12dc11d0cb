import type { EntityManager } from '@mikro-orm/postgresql';
import type { Scope } from '../../kernel/scope';

/** What clinic patients need of accounts; the users domain answers (wired in services.ts). */
export interface PatientAccounts {
  /**
   * Inside `tx`: a new account with no login for a patient the clinic manages, holding `email`
   * when given (a taken address is a CONFLICT); its id.
   */
  createManaged(tx: EntityManager, email: string | null, createdBy: string | null): Promise<string>;
  /** Which of these accounts exist. */
  existing(scope: Scope, ids: readonly string[]): Promise<Set<string>>;
  /**
   * The login addresses of an account that shared itself with the clinic, for the clinic's
   * record of it (the patient's email, a name until the clinic gives one).
   */
  sharedAddresses(scope: Scope, userId: string): Promise<string[]>;
}
