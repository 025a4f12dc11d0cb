import type { AccountDirectory } from './auth/accounts';
import type { Authenticator } from './auth/authenticator';
import type { BrokerLogin } from './auth/brokering/broker-login';
import type { BrokerService } from './auth/brokering/broker.service';
import type { BrokerStates } from './auth/brokering/broker-states';
import type { LoginGuard } from './auth/login-guard';
import type { Realms } from './auth/realms';
import type { SessionRevocations } from './auth/session-revocations';
import type { SessionsService } from './auth/sessions.service';
import type { TokenVerifier } from './auth/token-verifier';
import type { AccessLogService } from './domains/access-log/access-log.service';
import type { BlobsService } from './domains/blobs/blobs.service';
import type { CliniciansService } from './domains/clinics/clinicians.service';
import type { ClinicsService } from './domains/clinics/clinics.service';
import type { PatientExportService } from './domains/clinics/patient-export.service';
import type { PatientInvitesService } from './domains/clinics/patient-invites.service';
import type { PatientTagsService } from './domains/clinics/patient-tags.service';
import type { PatientsService } from './domains/clinics/patients.service';
import type { TideService } from './domains/clinics/tide/tide.service';
import type { CareTeamInvitationsService } from './domains/confirmations/careteam-invitations.service';
import type { ConfirmationStore } from './domains/confirmations/confirmations.store';
import type { PasswordResetsService } from './domains/confirmations/password-resets.service';
import type { SignupConfirmationsService } from './domains/confirmations/signup-confirmations.service';
import type { DeviceLogsService } from './domains/device-logs/device-logs.service';
import type { AgpService } from './domains/glucose/agp/agp.service';
import type { DataExportService } from './domains/glucose/data-export/data-export.service';
import type { GlucoseService } from './domains/glucose/glucose.service';
import type { LocalTimeService } from './domains/glucose/local-time.service';
import type { SummaryFeed } from './domains/glucose/summary-feed';
import type { ClinicSummaryFeed } from './domains/clinics/clinic-summary-feed';
import type { SummaryUpdater } from './domains/glucose/summary-updater';
import type { AccessPolicy } from './domains/permissions/access-policy';
import type { PermissionsService } from './domains/permissions/permissions.service';
import type { AccountLifecycleService } from './domains/users/account-lifecycle.service';
import type { UsersService } from './domains/users/users.service';
import type { ContentStore } from './infra/content/content-store';
import type { MailQueue } from './infra/mail/mail';
import type { ShutdownStep } from './infra/shutdown';
import type { AccessSink } from './kernel/access-trail';

/**
 * Every domain service and the auth machinery, wired once per process by the composition root
 * (createServices in src/services.ts) and handed down to the transports, which import this
 * catalogue and never the root itself (docs/architecture.md, "Layers").
 */
export interface Services {
  access: AccessPolicy;
  accessLog: AccessLogService;
  /** Where each request's access trail writes; null when recording is off (ACCESS_LOG_RECORDING). */
  accessSink: AccessSink | null;
  users: UsersService;
  lifecycle: AccountLifecycleService;
  permissions: PermissionsService;
  contents: ContentStore;
  blobs: BlobsService;
  deviceLogs: DeviceLogsService;
  glucose: GlucoseService;
  /** The Ambulatory Glucose Profile of a patient's CGM data. */
  agp: AgpService;
  /** Readings' local time (local-time.ts's rule) and the zone a user's uploads last named. */
  localTime: LocalTimeService;
  /** A patient's data as a JSON, CSV or Excel download. */
  dataExport: DataExportService;
  summaryUpdater: SummaryUpdater;
  /** The mail outbox: domains enqueue rendered mail in the transaction of the action that needs it. */
  mail: MailQueue;
  /** Summary changes for this instance's live subscribers. */
  summaryFeed: SummaryFeed;
  /** Summary changes of clinics' patients for this instance's live subscribers. */
  clinicSummaryFeed: ClinicSummaryFeed;
  /** Mailed keys of every confirmation flow (sign-up, password reset, invitations). */
  confirmations: ConfirmationStore;
  careTeamInvitations: CareTeamInvitationsService;
  signupConfirmations: SignupConfirmationsService;
  passwordResets: PasswordResetsService;
  clinics: ClinicsService;
  clinicians: CliniciansService;
  patients: PatientsService;
  patientExport: PatientExportService;
  patientTags: PatientTagsService;
  patientInvites: PatientInvitesService;
  tide: TideService;
  realms: Realms;
  verifier: TokenVerifier;
  revocations: SessionRevocations;
  accountDirectory: AccountDirectory;
  guard: LoginGuard;
  broker: BrokerService;
  brokerLogin: BrokerLogin;
  brokerStates: BrokerStates;
  authenticator: Authenticator;
  sessions: SessionsService;
  close(step: ShutdownStep): Promise<void>;
}
