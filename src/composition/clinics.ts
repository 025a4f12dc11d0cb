import type { Services } from '../service-catalog';
import { ExportsInFlight } from '../kernel/exports-in-flight';
import { accountAddresses } from '../domains/users/account-lifecycle.service';
import type { UsersService } from '../domains/users/users.service';
import type { AccountsExist } from '../kernel/accounts';
import { ClinicTotals } from '../domains/clinics/clinic-totals';
import { ClinicsService } from '../domains/clinics/clinics.service';
import { CliniciansService } from '../domains/clinics/clinicians.service';
import type { ClinicAccounts } from '../domains/clinics/clinic-accounts';
import type { PatientAccounts } from '../domains/clinics/patient-accounts';
import { PatientInvitesService } from '../domains/clinics/patient-invites.service';
import { PatientTagsService } from '../domains/clinics/patient-tags.service';
import { PatientsService } from '../domains/clinics/patients.service';
import { PatientExportService } from '../domains/clinics/patient-export.service';
import { TideService } from '../domains/clinics/tide/tide.service';
import { ClinicianInvitationKeys } from '../domains/confirmations/clinician-invitation-keys';
import { verifiedAddresses } from '../domains/confirmations/invitee-accounts';
import { AgpService } from '../domains/glucose/agp/agp.service';
import type { GlucoseUnits } from '../domains/glucose/summary/units';
import { LocalTimeService } from '../domains/glucose/local-time.service';
import { DataExportService } from '../domains/glucose/data-export/data-export.service';
import type { Foundation, ServiceDependencies } from './foundation';

export type ClinicServices = Pick<
  Services,
  | 'clinics'
  | 'localTime'
  | 'dataExport'
  | 'clinicians'
  | 'patientTags'
  | 'patients'
  | 'patientExport'
  | 'patientInvites'
  | 'tide'
  | 'agp'
>;

/** The accounts of clinicians and clinic members as the clinics domain sees them. */
function clinicAccounts(users: UsersService, accountsExist: AccountsExist): ClinicAccounts {
  return {
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
}

/** Patients' accounts as the clinics domain sees them, including the managed ones it creates. */
function patientAccounts(users: UsersService, accountsExist: AccountsExist): PatientAccounts {
  return {
    createManaged: async (tx, email, createdBy) =>
      (await users.insert(tx, { username: null, emails: email ? [email] : [], roles: [] }, createdBy)).id,
    existing: accountsExist,
    sharedAddresses: async (scope, userId) => {
      const account = await users.findById(scope.em, userId);
      return account ? accountAddresses(account) : [];
    },
  };
}

/** Clinics, their clinicians and patients, and the glucose views that follow a clinic's settings. */
export function clinicServices(
  { config, baseUrl }: ServiceDependencies,
  { access, confirmations, users, accountsExist, memberships, events }: Foundation,
): ClinicServices {
  const members = clinicAccounts(users, accountsExist);
  const clinics = new ClinicsService(members, config.objectQuotas.clinics, memberships);
  const localTime = new LocalTimeService(
    access,
    async (scope, clinicId) => (await clinics.get(scope, clinicId)).timezone ?? null,
  );
  // One budget for a caller's heavy downloads (data exports, patient-list CSV).
  const exportsInFlight = new ExportsInFlight(config.exportsPerCaller);
  const dataExport = new DataExportService(access, localTime, exportsInFlight);
  const clinicians = new CliniciansService(
    clinics,
    members,
    new ClinicianInvitationKeys(confirmations, baseUrl),
    memberships,
  );
  const patientTags = new PatientTagsService(clinics);
  const patients = new PatientsService(
    clinics,
    patientTags,
    patientAccounts(users, accountsExist),
    access,
    new ClinicTotals(events),
  );
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
  return {
    clinics,
    localTime,
    dataExport,
    clinicians,
    patientTags,
    patients,
    patientExport,
    patientInvites,
    tide,
    agp,
  };
}
