import type { Config } from '../config';
import type { AccountsExist } from '../kernel/accounts';
import type { Scope } from '../kernel/scope';
import { AccessPolicy } from '../domains/permissions/access-policy';
import { clinicControl, clinicGrants } from '../domains/clinics/membership';
import { ClinicMemberships } from '../domains/clinics/clinician-memberships';
import { PermissionsService } from '../domains/permissions/permissions.service';
import { ReceivedGrants } from '../domains/permissions/received-grants';
import { setPasswordHashCost } from '../domains/users/password-hash';
import { setClinicCopyCacheBytes } from '../domains/glucose/clinic-copy-cache';
import { accountCache } from '../domains/users/account-cache';
import { UsersService } from '../domains/users/users.service';
import { ConfirmationStore } from '../domains/confirmations/confirmations.store';
import { DatabaseEvents } from '../infra/database/events';
import type { Orm } from '../infra/database/orm';
import type { Logger } from '../infra/logger';
import { createMailer, type Mailer } from '../infra/mail/mailer';
import type { ObjectStore } from '../infra/object-store/object-store';

/** What the process hands the composition root (src/app.ts builds it from the configuration). */
export interface ServiceDependencies {
  config: Config;
  logger: Logger;
  orm: Orm;
  objectStore: ObjectStore;
  /** Public base URL; realm issuers live under it. */
  baseUrl: string;
  secrets: { serverSecret: string; devClientSecret: string | undefined };
}

/** The services nearly every other one is built on: access checks, accounts, grants and mail. */
export interface Foundation {
  access: AccessPolicy;
  mailer: Mailer;
  confirmations: ConfirmationStore;
  users: UsersService;
  accountsExist: AccountsExist;
  permissions: PermissionsService;
  /** Whether callers are clinicians anywhere, kept between requests. */
  memberships: ClinicMemberships;
  /** The database's notifications; not listening until started, after everything has subscribed. */
  events: DatabaseEvents;
}

export function foundation({ config, logger, orm }: ServiceDependencies): Foundation {
  // LISTEN needs a session of its own: DATABASE_DIRECT_URL when DATABASE_URL is a transaction-mode pooler.
  const events = new DatabaseEvents(config.databaseDirectUrl ?? orm.config.get('clientUrl')!, logger);
  const memberships = new ClinicMemberships(events);
  const receivedGrants = new ReceivedGrants(events);
  const access = new AccessPolicy([clinicGrants(memberships)], clinicControl, receivedGrants);
  const mailer = createMailer(config, () => orm.em.fork(), logger);
  const confirmations = new ConfirmationStore(mailer.queue, config.confirmationLifetimes);
  setPasswordHashCost(config.passwordHashCost);
  setClinicCopyCacheBytes(config.clinicCopyCacheBytes);
  const users = new UsersService(access, accountCache(events));
  const accountsExist = (scope: Scope, ids: readonly string[]) => users.existing(scope, ids);
  const permissions = new PermissionsService(access, accountsExist, receivedGrants);
  return { access, mailer, confirmations, users, accountsExist, permissions, memberships, events };
}
