import type { GraphQLSchema } from 'graphql';
import { SessionsResolver } from '../auth/sessions.resolver';
import { PermissionsResolver, UserSharingResolver } from '../domains/permissions/permissions.resolver';
import { UsersResolver } from '../domains/users/users.resolver';
import { BlobsResolver, UserBlobsResolver } from '../domains/blobs/blobs.resolver';
import { DeviceLogsResolver, UserDeviceLogsResolver } from '../domains/device-logs/device-logs.resolver';
import { ClinicsResolver } from '../domains/clinics/clinics.resolver';
import { ClinicCliniciansResolver, CliniciansResolver } from '../domains/clinics/clinicians.resolver';
import {
  DatasetsResolver,
  GlucoseSummaryRepairResolver,
  UserGlucoseResolver,
} from '../domains/glucose/glucose.resolver';
import { GlucoseReadingLocalTimeResolver, UserTimeZoneResolver } from '../domains/glucose/local-time.resolver';
import { ClinicPatientGlucoseResolver } from '../domains/clinics/patient-glucose.resolver';
import {
  ClinicPatientFieldsResolver,
  ClinicPatientsResolver,
  PatientsResolver,
} from '../domains/clinics/patients.resolver';
import { CgmSummaryAgpResolver } from '../domains/glucose/agp/agp.resolver';
import { ClinicPatientExportResolver } from '../domains/clinics/patient-export.resolver';
import { Clinic } from '../domains/clinics/clinics.types';
import {
  GlucoseSummarySubscriptions,
  GlucoseSummaryUpdateFields,
  SUMMARY_TOPIC,
} from '../domains/glucose/summary-updates.resolver';
import {
  CLINIC_SUMMARY_TOPIC,
  ClinicPatientSummarySubscriptions,
  ClinicPatientSummaryUpdateFields,
} from '../domains/clinics/clinic-summary-updates.resolver';
import { ClinicPatientDataSourcesResolver, ClinicTideResolver } from '../domains/clinics/tide/tide.resolver';
import { ClinicAccessLogResolver, UserAccessLogResolver } from '../domains/access-log/access-log.resolver';
import { AccountConfirmationsResolver } from '../domains/confirmations/confirmations.resolver';
import { CareTeamInvitationsResolver } from '../domains/confirmations/careteam-invitations.resolver';
import type { Services } from '../service-catalog';
import { instanceIn, type ResolverBinding } from './bindings';
import { referenceKey, type EntityBinding } from './federation';
import { livePubSub } from './live';
import { buildIsletSchema } from './schema';

/** Every resolver of the schema, listed once, with the services it calls. */
export function resolverBindings(services: Services): ResolverBinding[] {
  return [
    [UsersResolver, new UsersResolver(services.users, services.lifecycle)],
    [SessionsResolver, new SessionsResolver(services.sessions)],
    [PermissionsResolver, new PermissionsResolver(services.permissions, services.users)],
    [UserSharingResolver, new UserSharingResolver(services.permissions)],
    [BlobsResolver, new BlobsResolver(services.blobs)],
    [UserBlobsResolver, new UserBlobsResolver(services.blobs)],
    [DeviceLogsResolver, new DeviceLogsResolver(services.deviceLogs)],
    [UserDeviceLogsResolver, new UserDeviceLogsResolver(services.deviceLogs)],
    [DatasetsResolver, new DatasetsResolver(services.glucose)],
    [UserGlucoseResolver, new UserGlucoseResolver(services.glucose, services.localTime)],
    [GlucoseReadingLocalTimeResolver, new GlucoseReadingLocalTimeResolver(services.localTime)],
    [UserTimeZoneResolver, new UserTimeZoneResolver(services.localTime)],
    [GlucoseSummaryRepairResolver, new GlucoseSummaryRepairResolver(services.glucose)],
    [
      CgmSummaryAgpResolver,
      new CgmSummaryAgpResolver(services.agp, (scope, clinicId) => services.clinics.timeZoneOf(scope, clinicId)),
    ],
    [GlucoseSummarySubscriptions, new GlucoseSummarySubscriptions()],
    [GlucoseSummaryUpdateFields, new GlucoseSummaryUpdateFields(services.glucose)],
    [ClinicsResolver, new ClinicsResolver(services.clinics)],
    [ClinicPatientGlucoseResolver, new ClinicPatientGlucoseResolver(services.glucose, services.localTime)],
    [ClinicPatientSummarySubscriptions, new ClinicPatientSummarySubscriptions()],
    [ClinicPatientSummaryUpdateFields, new ClinicPatientSummaryUpdateFields(services.patients)],
    [ClinicTideResolver, new ClinicTideResolver(services.tide)],
    [ClinicPatientDataSourcesResolver, new ClinicPatientDataSourcesResolver(services.tide)],
    [ClinicCliniciansResolver, new ClinicCliniciansResolver(services.clinicians)],
    [CliniciansResolver, new CliniciansResolver(services.clinicians, services.clinics)],
    [ClinicPatientsResolver, new ClinicPatientsResolver(services.patients, services.patientInvites)],
    [ClinicPatientExportResolver, new ClinicPatientExportResolver(services.patientExport)],
    [ClinicPatientFieldsResolver, new ClinicPatientFieldsResolver(services.users, services.clinics)],
    [PatientsResolver, new PatientsResolver(services.patients, services.patientTags, services.patientInvites)],
    [UserAccessLogResolver, new UserAccessLogResolver(services.accessLog)],
    [ClinicAccessLogResolver, new ClinicAccessLogResolver(services.accessLog)],
    [CareTeamInvitationsResolver, new CareTeamInvitationsResolver(services.careTeamInvitations)],
    [
      AccountConfirmationsResolver,
      new AccountConfirmationsResolver(services.signupConfirmations, services.passwordResets),
    ],
  ];
}

/**
 * The federation entities, each resolved through its lookup field's resolver (the same loader
 * and access rule as a direct query).
 */
export function entityBindings(bindings: ResolverBinding[]): EntityBinding[] {
  const users = instanceIn(bindings, UsersResolver);
  const blobs = instanceIn(bindings, BlobsResolver);
  const deviceLogs = instanceIn(bindings, DeviceLogsResolver);
  const clinics = instanceIn(bindings, ClinicsResolver);
  const clinicPatients = instanceIn(bindings, ClinicPatientsResolver);
  return [
    { typeName: 'User', resolve: (reference, scope) => users.user(referenceKey(reference, 'userId'), scope) },
    { typeName: 'Blob', resolve: (reference, scope) => blobs.blob(referenceKey(reference, 'id'), scope) },
    {
      typeName: 'DeviceLog',
      resolve: (reference, scope) => deviceLogs.deviceLog(referenceKey(reference, 'id'), scope),
    },
    { typeName: 'Clinic', resolve: (reference, scope) => clinics.clinic(referenceKey(reference, 'id'), scope) },
    {
      typeName: 'ClinicPatient',
      resolve: (reference, scope) =>
        clinicPatients.patient(
          Object.assign(new Clinic(), { id: referenceKey(reference, 'clinicId') }),
          referenceKey(reference, 'userId'),
          scope,
        ),
    },
  ];
}

/** The service's schema: every resolver wired to its services, built as a federation subgraph. */
export function schemaFor(services: Services): Promise<GraphQLSchema> {
  const bindings = resolverBindings(services);
  const live = livePubSub({
    [SUMMARY_TOPIC]: (scope, userId) => services.summaryFeed.ofUser(scope, userId),
    [CLINIC_SUMMARY_TOPIC]: (scope, clinicId) => services.clinicSummaryFeed.ofClinic(scope, clinicId),
  });
  return buildIsletSchema(bindings, entityBindings(bindings), live);
}

/** The schema's shape alone (no services behind it), for emitting and checking schema.graphql. */
export function sdlSchema(): Promise<GraphQLSchema> {
  return schemaFor({} as Services);
}
