import type { ContentRoute, RestRoute, ServiceRoute } from '../route';
import type { Services } from '../../src/service-catalog';
import { blobDownloads, blobRoutes } from './blobs';
import { clinicPatientListRoutes, clinicPatientRoutes } from './clinic-patients';
import { clinicPatientAccessRoutes } from './clinic-patient-access';
import { clinicPatientInviteRoutes } from './clinic-patient-invites';
import { clinicPatientTagRoutes } from './clinic-patient-tags';
import { patientCsvDownloads } from './clinic-patients-csv';
import { clinicianRoutes } from './clinicians';
import { clinicRoutes } from './clinics';
import { deviceLogDownloads, deviceLogRoutes } from './device-logs';
import { glucoseDownloads, glucoseRoutes } from './datasets';
import { dataExportDownloads } from './data-export';
import { agpRoutes } from './agp';
import { permissionRoutes } from './permissions';
import { sessionRoutes } from './sessions';
import { userRoutes } from './users';
import { tideRoutes } from './tide';
import { accessLogRoutes } from './access-log';
import { confirmAccountRoutes } from './confirm-account';
import { careTeamInvitationRoutes } from './careteam-invitations';

/** The legacy REST API: one row per Tidepool operation. */
export const restRoutes: RestRoute[] = [
  ...sessionRoutes,
  ...userRoutes,
  ...permissionRoutes,
  ...blobRoutes,
  ...deviceLogRoutes,
  ...glucoseRoutes,
  ...clinicRoutes,
  ...clinicianRoutes,
  ...clinicPatientRoutes,
  ...clinicPatientAccessRoutes,
  ...clinicPatientTagRoutes,
  ...clinicPatientInviteRoutes,
  ...tideRoutes,
  ...accessLogRoutes,
  ...confirmAccountRoutes,
  ...careTeamInvitationRoutes,
];

/** JSON reads the services answer directly, without a GraphQL document (see ServiceRoute). */
export const serviceRoutes: ServiceRoute[] = [...clinicPatientListRoutes];

/** Downloads, which stream bytes GraphQL cannot carry. */
export function contentRoutes(
  services: Pick<Services, 'blobs' | 'deviceLogs' | 'glucose' | 'patientExport' | 'agp' | 'dataExport'>,
): ContentRoute[] {
  return [
    ...blobDownloads(services.blobs),
    ...deviceLogDownloads(services.deviceLogs),
    ...glucoseDownloads(services.glucose),
    ...dataExportDownloads(services.dataExport),
    ...agpRoutes(services.agp),
    ...patientCsvDownloads(services.patientExport),
  ];
}
