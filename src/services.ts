import type { EntityManager } from '@mikro-orm/postgresql';
import { accountDirectory } from './auth/accounts';
import { Authenticator } from './auth/authenticator';
import { clientsFor } from './auth/oidc/clients';
import { BrokerLogin } from './auth/brokering/broker-login';
import { BrokerService } from './auth/brokering/broker.service';
import { BrokerStates } from './auth/brokering/broker-states';
import { IdentityLinks } from './auth/brokering/identity-links';
import { IdentityProviders, readIdentityProviders } from './auth/brokering/identity-providers';
import { registerTokenExchange } from './auth/brokering/token-exchange';
import { LoginGuard } from './auth/login-guard';
import { startPasswordBudget } from './auth/password-budget';
import { Realms } from './auth/realms';
import { SessionRevocations } from './auth/session-revocations';
import { SessionsService } from './auth/sessions.service';
import { TokenVerifier } from './auth/token-verifier';
import type { Config } from './config';
import type { Services } from './service-catalog';
import { ownerAccounts } from './kernel/accounts';
import { UploadsInFlight } from './kernel/uploads-in-flight';
import { ExportsInFlight } from './kernel/exports-in-flight';
import type { Scope } from './kernel/scope';
import { AccessPolicy } from './domains/permissions/access-policy';
import { assertClinicAccess, clinicControl, clinicGrants } from './domains/clinics/membership';
import { AccessLogService } from './domains/access-log/access-log.service';
import { accessEventsInTransactions, accessSink, GroupedEntryWriter } from './domains/access-log/access-log.writer';
import { PermissionsService } from './domains/permissions/permissions.service';
import { AccountLifecycleService, accountAddresses } from './domains/users/account-lifecycle.service';
import { ClinicsService } from './domains/clinics/clinics.service';
import { CliniciansService } from './domains/clinics/clinicians.service';
import type { ClinicAccounts } from './domains/clinics/clinic-accounts';
import type { PatientAccounts } from './domains/clinics/patient-accounts';
import { PatientInvitesService } from './domains/clinics/patient-invites.service';
import { PatientTagsService } from './domains/clinics/patient-tags.service';
import { PatientsService } from './domains/clinics/patients.service';
import { PatientExportService } from './domains/clinics/patient-export.service';
import { TideService } from './domains/clinics/tide/tide.service';
import { UsersService } from './domains/users/users.service';
import { ConfirmationStore } from './domains/confirmations/confirmations.store';
import { PasswordResetsService } from './domains/confirmations/password-resets.service';
import { SignupConfirmationsService } from './domains/confirmations/signup-confirmations.service';
import {
  CareTeamInvitationsService,
  type InvitationGrants,
} from './domains/confirmations/careteam-invitations.service';
import { ClinicianInvitationKeys } from './domains/confirmations/clinician-invitation-keys';
import { verifiedAddresses, type InviteeAccounts } from './domains/confirmations/invitee-accounts';
import { limitConcurrentHashes } from './domains/users/password-hash';
import type { Orm } from './infra/database/orm';
import type { Logger } from './infra/logger';
import { DatabaseEvents } from './infra/database/events';
import { createMailer } from './infra/mail/mailer';
import { ContentStore } from './infra/content/content-store';
import type { ObjectStore } from './infra/object-store/object-store';
import { BlobsService } from './domains/blobs/blobs.service';
import { DeviceLogsService } from './domains/device-logs/device-logs.service';
import { GlucoseService } from './domains/glucose/glucose.service';
import { SummaryUpdater } from './domains/glucose/summary-updater';
import { AgpService } from './domains/glucose/agp/agp.service';
import type { GlucoseUnits } from './domains/glucose/summary/units';
import { LocalTimeService } from './domains/glucose/local-time.service';
import { DataExportService } from './domains/glucose/data-export/data-export.service';
import { SUMMARY_CHANNEL, SummaryFeed } from './domains/glucose/summary-feed';
import { ClinicSummaryFeed } from './domains/clinics/clinic-summary-feed';

export interface ServiceDependencies {
  config: Config;
  logger: Logger;
  orm: Orm;
  objectStore: ObjectStore;
  baseUrl: string;
  secrets: { serverSecret: string; devClientSecret: string | undefined };
}

/** Entries expire by the day; an hourly look keeps a removal small. */
const ACCESS_LOG_SWEEP_INTERVAL_MS = 60 * 60 * 1000;
/** How long stopping waits for the queued access log entries of reads to be written. */
const ACCESS_LOG_CLOSE_TIMEOUT_MS = 10_000;

export async function createServices({
  config,
  logger,
  orm,
  objectStore,
  baseUrl,
  secrets,
}: ServiceDependencies): Promise<Services> {
  const access = new AccessPolicy([clinicGrants], clinicControl);
  const mailer = createMailer(config, () => orm.em.fork(), logger);
  const confirmations = new ConfirmationStore(mailer.queue, config.confirmationLifetimes);
  const users = new UsersService(access);
  const readEntries = config.accessLogRecording
    ? new GroupedEntryWriter(
        () => orm.em.fork(),
        logger,
        (em, ids) => users.existingIds(em, ids),
      )
    : null;
  const accessLog = new AccessLogService(
    access,
    (scope, clinicId) => assertClinicAccess(scope, clinicId, 'admin'),
    (scope, ids) => users.loginNames(scope, ids),
    () => readEntries?.flush(),
  );
  orm.em.getEventManager().registerSubscriber(accessEventsInTransactions);
  const sweepAccessLog = () =>
    accessLog
      .sweep({ em: orm.em.fork() }, config.accessLogRetentionDays)
      .then((removed) => removed && logger.info({ removed }, 'removed access log entries past their retention'))
      .catch((error: unknown) => logger.warn({ err: error }, 'sweeping the access log failed'));
  const accessLogSweeper = setInterval(sweepAccessLog, ACCESS_LOG_SWEEP_INTERVAL_MS).unref();
  const accountsExist = (scope: Scope, ids: readonly string[]) => users.existing(scope, ids);
  const permissions = new PermissionsService(access, accountsExist);
  const contents = new ContentStore(orm, objectStore, logger, {
    uploadTimeoutMs: config.uploadTimeoutSeconds * 1000,
    sizeLimitBytes: config.contentSizeLimitBytes,
  });
  const holdAccount = (tx: EntityManager, userId: string) => users.holdExisting(tx, userId);
  const uploads = new UploadsInFlight(config.uploadsPerAccount);
  const owners = ownerAccounts(accountsExist, holdAccount, config.objectQuotas, uploads);
  const blobs = new BlobsService(access, owners, contents);
  const deviceLogs = new DeviceLogsService(access, owners, contents);
  const summaryUpdater = new SummaryUpdater(() => orm.em.fork(), logger, config.summaryReadingsPerTurn);
  const glucose = new GlucoseService(access, owners, summaryUpdater, config.glucoseReadingsPerHour, (scope, userId) =>
    tide.userDataSources(scope, userId),
  );
  const clinicAccounts: ClinicAccounts = {
    addresses: async (scope, userId) => {
      const [account] = await users.many(scope, [userId]);
      return account && accountAddresses(account);
    },
    datedAddresses: async (scope, userId) => {
      const [account] = await users.many(scope, [userId]);
      return account && users.addressesOf(scope.em, userId);
    },
    verifiedAddresses: async (scope, userId) => {
      const [account] = await users.many(scope, [userId]);
      return account && verifiedAddresses(account);
    },
    existing: accountsExist,
  };
  const clinics = new ClinicsService(clinicAccounts, config.objectQuotas.clinics);
  const localTime = new LocalTimeService(
    access,
    async (scope, clinicId) => (await clinics.get(scope, clinicId)).timezone ?? null,
  );
  // One budget for a caller's heavy downloads (data exports, patient-list CSV).
  const exportsInFlight = new ExportsInFlight(config.exportsPerCaller);
  const dataExport = new DataExportService(access, localTime, exportsInFlight);
  const clinicians = new CliniciansService(
    clinics,
    clinicAccounts,
    new ClinicianInvitationKeys(confirmations, baseUrl),
  );
  const patientAccounts: PatientAccounts = {
    createManaged: async (tx, email, createdBy) =>
      (await users.insert(tx, { username: null, emails: email ? [email] : [], roles: [] }, createdBy)).id,
    existing: accountsExist,
    sharedAddresses: async (scope, userId) => {
      const account = await users.findById(scope.em, userId);
      return account ? accountAddresses(account) : [];
    },
  };
  const patientTags = new PatientTagsService(clinics);
  const patients = new PatientsService(clinics, patientTags, patientAccounts, access);
  const patientExport = new PatientExportService(clinics, exportsInFlight, baseUrl);
  const patientInvites = new PatientInvitesService(clinics, patients);
  const tide = new TideService(clinics);
  const agp = new AgpService(
    access,
    async (scope, clinicId, userId) => {
      const patient = await patients.get(scope, clinicId, userId);
      const clinic = await clinics.reached(scope, clinicId);
      return {
        permissions: patient.permissions,
        timezone: clinic.timezone ?? null,
        units: clinic.preferredBgUnits as GlucoseUnits,
      };
    },
    config.rememberedAgps,
  );
  const inviteeAccounts: InviteeAccounts = {
    verifiedAddresses: async (em, userId) => {
      const account = await users.findById(em, userId);
      return account && verifiedAddresses(account);
    },
    holderOf: async (em, email) => (await users.findByEmail(em, email))?.id ?? null,
  };
  const invitationGrants: InvitationGrants = {
    held: (scope, granteeId, sharerId) => access.heldBy(scope, granteeId, sharerId),
    grant: (tx, sharerId, granteeId, offer) =>
      permissions.grantInvited(tx, sharerId, granteeId, offer.permissions, {
        clinicId: offer.clinicId,
        grantedBy: offer.sentBy,
      }),
  };
  const careTeamInvitations = new CareTeamInvitationsService(
    confirmations,
    access,
    invitationGrants,
    inviteeAccounts,
    baseUrl,
  );
  const lifecycle = new AccountLifecycleService(users, access, (em, custodianId, accountId) =>
    permissions.grantCustodianship(em, custodianId, accountId),
  );

  const events = new DatabaseEvents(orm.config.get('clientUrl')!, logger);
  const revocations = new SessionRevocations(orm, events, config.accessTokenTtl, logger);
  const accounts = accountDirectory(users, orm);
  limitConcurrentHashes(config.threadpoolSize);
  const guard = new LoginGuard(
    orm,
    accounts,
    logger,
    await startPasswordBudget(config.passwordChecksPerSecond, logger),
  );
  const links = new IdentityLinks();
  const broker = new BrokerService(
    new IdentityProviders(readIdentityProviders(config.identityProvidersFile)),
    links,
    users,
    orm,
  );
  const brokerStates = new BrokerStates(orm);
  const brokerLogin = new BrokerLogin(broker, brokerStates);
  const realms = await Realms.start({
    config,
    orm,
    baseUrl,
    accounts,
    logger,
    revocations,
    events,
    guard,
    clients: clientsFor(config, secrets.devClientSecret, baseUrl),
    extend: (runtime) => registerTokenExchange(runtime, broker, accounts),
  });
  const summaryFeed = new SummaryFeed(access, logger);
  const clinicSummaryFeed = new ClinicSummaryFeed(summaryFeed, () => orm.em.fork());
  events.on(SUMMARY_CHANNEL, (payload) => {
    summaryFeed
      .receive(payload)
      .catch((error: unknown) => logger.warn({ err: error }, 'delivering a glucose summary change failed'));
  });
  mailer.start(events);
  await events.start();
  revocations.start();
  summaryUpdater.start();
  const accountMailLinks = { baseUrl, realm: config.legacyRealm };
  const signupConfirmations = new SignupConfirmationsService(
    confirmations,
    users,
    accountMailLinks,
    config.confirmationLifetimes,
  );
  users.onAddressesChanged((scope, account) => signupConfirmations.addressesChanged(scope, account));
  const verifier = new TokenVerifier(realms);
  const authenticator = new Authenticator(verifier, revocations);
  const sessions = new SessionsService(realms, users, authenticator, guard, revocations, orm, {
    legacyRealm: config.legacyRealm,
    serverSecret: secrets.serverSecret,
  });
  const passwordResets = new PasswordResetsService(
    confirmations,
    users,
    accountMailLinks,
    config.confirmationLifetimes,
    (userId) => sessions.endAllSessionsOf(userId),
  );

  // Deleting an account: its sessions end first, then each domain removes what it holds, in the
  // transaction that deletes the account.
  lifecycle.beforeDelete((userId) => sessions.endAllSessionsOf(userId));
  lifecycle.onDelete((scope, userId) => permissions.forgetUser(scope, userId));
  lifecycle.onDelete((scope, userId) => links.forgetUser(scope.em, userId));
  lifecycle.onDelete((scope, userId) => blobs.forgetUser(scope, userId));
  lifecycle.onDelete((scope, userId) => deviceLogs.forgetUser(scope, userId));
  lifecycle.onDelete((scope, userId) => glucose.forgetUser(scope, userId));
  lifecycle.onDelete((scope, userId, addresses) => clinicians.forgetUser(scope, userId, addresses));
  lifecycle.onDelete((scope, userId) => patients.forgetUser(scope, userId));
  lifecycle.onDelete((scope, userId) => patientInvites.forgetUser(scope, userId));
  lifecycle.onDelete((scope, userId) => confirmations.forgetUser(scope.em, userId));
  // What was granted through a clinic's access ends when the clinic no longer backs it.
  clinicians.onBackingEnds((tx, clinicId, userId) =>
    permissions.endClinicGrants(tx, clinicId, { clinicianId: userId }),
  );
  patients.onBackingEnds((tx, clinicId, userId) => permissions.endClinicGrants(tx, clinicId, { patientId: userId }));
  clinicians.onBackingEnds((tx, clinicId, userId) =>
    careTeamInvitations.endClinicInvitations(tx, clinicId, { clinicianId: userId }),
  );
  patients.onBackingEnds((tx, clinicId, userId) =>
    careTeamInvitations.endClinicInvitations(tx, clinicId, { patientId: userId }),
  );

  return {
    access,
    accessLog,
    accessSink: readEntries && accessSink(readEntries),
    users,
    lifecycle,
    permissions,
    contents,
    blobs,
    deviceLogs,
    glucose,
    agp,
    localTime,
    dataExport,
    summaryUpdater,
    mail: mailer.queue,
    summaryFeed,
    clinicSummaryFeed,
    confirmations,
    careTeamInvitations,
    signupConfirmations,
    passwordResets,
    clinics,
    clinicians,
    patients,
    patientExport,
    patientTags,
    patientInvites,
    tide,
    realms,
    verifier,
    revocations,
    accountDirectory: accounts,
    guard,
    broker,
    brokerLogin,
    brokerStates,
    authenticator,
    sessions,
    close: async (step) => {
      clearInterval(accessLogSweeper);
      revocations.close();
      await step('the glucose summary updater', () => summaryUpdater.close());
      await step('the access log writer', async () => readEntries?.close(ACCESS_LOG_CLOSE_TIMEOUT_MS));
      await step('the mail sender', () => mailer.close());
      await step('the database event listener', () => events.close());
    },
  };
}
