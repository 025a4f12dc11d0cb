import { Loader } from '../../kernel/loader';
import type { Scope } from '../../kernel/scope';
import { DEFAULT_GLUCOSE_UNITS, type GlucoseUnits } from '../glucose/summary/units';
import type { ClinicRecord, PatientTagValue } from './clinic.entity';
import { clinicsInContext, tagsOfClinics } from './clinics.repository';
import { callerRoles } from './membership';

/**
 * Clinics by id, one SELECT for every clinic a request names. It reads the caller's roles and the
 * clinics' patient tags with them and primes their loaders, so the membership check and the tags
 * that follow a clinic's read cost no statement of their own.
 */
export function clinicLoader(scope: Scope): Loader<string, ClinicRecord | null> {
  return scope.loaders.get(
    'clinics.byId',
    () =>
      new Loader<string, ClinicRecord | null>(async (ids) => {
        const callerId = scope.principal.userId;
        const rows = await clinicsInContext(scope.em, ids, callerId);
        for (const { clinic, callerRoles: roles, tags } of rows) {
          if (callerId !== null) callerRoles(scope, callerId).prime(clinic.id, roles);
          patientTagsLoader(scope).prime(clinic.id, tags);
        }
        const byId = new Map(rows.map(({ clinic }) => [clinic.id, clinic]));
        return ids.map((id) => byId.get(id) ?? null);
      }),
  );
}

/** The glucose unit a clinic reads data in (its preferredBgUnits): GraphQL's default inside the clinic. */
export async function clinicUnits(scope: Scope, clinicId: string): Promise<GlucoseUnits> {
  return (
    ((await clinicLoader(scope).load(clinicId))?.preferredBgUnits as GlucoseUnits | undefined) ?? DEFAULT_GLUCOSE_UNITS
  );
}

/** The patient tags of many clinics, oldest first, in one SELECT. */
export function patientTagsLoader(scope: Scope): Loader<string, PatientTagValue[]> {
  return scope.loaders.get(
    'clinics.patientTags',
    () =>
      new Loader<string, PatientTagValue[]>(async (clinicIds) => {
        const rows = await tagsOfClinics(scope.em, clinicIds);
        const byClinic = new Map<string, PatientTagValue[]>(clinicIds.map((id) => [id, []]));
        for (const row of rows) byClinic.get(row.clinic_id)?.push({ id: row.id, name: row.name });
        return clinicIds.map((id) => byClinic.get(id) ?? []);
      }),
  );
}
