import { IdentityLinkSchema } from './auth/brokering/identity-link.entity';
import { LoginFailureSchema, OidcRecordSchema, RealmKeySchema, RevokedSessionSchema } from './auth/oidc/oidc.entity';
import { ClinicSchema } from './domains/clinics/clinic.entity';
import { ClinicPatientSchema, PatientInviteSchema, PatientTagSchema } from './domains/clinics/clinic-patient.entity';
import { ClinicianInviteSchema, ClinicianSchema } from './domains/clinics/clinician.entity';
import { ClinicPatientPeriodStatsSchema } from './domains/clinics/clinic-patient-period-stats.entity';
import { DatasetSchema } from './domains/glucose/dataset.entity';
import { GlucoseReadingSchema, GlucoseReadingShapeSchema } from './domains/glucose/glucose-reading.entity';
import { GlucoseBucketSchema, GlucoseSummarySchema } from './domains/glucose/glucose-summary.entity';
import { GlucosePeriodStatsSchema } from './domains/glucose/glucose-period-stats.entity';
import { BlobSchema } from './domains/blobs/blob.entity';
import { ConfirmationSchema } from './domains/confirmations/confirmation.entity';
import { DeviceLogSchema } from './domains/device-logs/device-log.entity';
import { PermissionGrantSchema } from './domains/permissions/permission-grant.entity';
import { UserEmailSchema, UserSchema } from './domains/users/user.entity';
import { PendingObjectSchema } from './infra/content/pending-object.entity';
import { OutboundMailSchema } from './infra/mail/outbound-mail.entity';
import { RateBucketSchema } from './infra/rate-limits/rate-bucket.entity';
import { AccessLogHourSchema, AccessLogRecordSchema } from './domains/access-log/access-log.entity';

/**
 * Every entity the ORM manages, one line per domain. Registered here, at the composition root,
 * and handed to openDatabase by whoever composes the application (src/service.ts, src/cli/*,
 * the test setup), so src/infra never imports a domain or auth.
 */
export const entities = [
  ...[UserSchema, UserEmailSchema],
  ...[PermissionGrantSchema],
  ...[BlobSchema, DeviceLogSchema, PendingObjectSchema],
  ...[OutboundMailSchema, RateBucketSchema],
  ...[ClinicSchema, ClinicianSchema, ClinicianInviteSchema, ClinicPatientSchema, PatientTagSchema, PatientInviteSchema],
  ...[ClinicPatientPeriodStatsSchema],
  ...[DatasetSchema, GlucoseReadingSchema, GlucoseBucketSchema, GlucoseSummarySchema, GlucosePeriodStatsSchema],
  ...[GlucoseReadingShapeSchema],
  ...[AccessLogRecordSchema, AccessLogHourSchema],
  ...[ConfirmationSchema],
  ...[OidcRecordSchema, RealmKeySchema, RevokedSessionSchema, LoginFailureSchema, IdentityLinkSchema],
];
