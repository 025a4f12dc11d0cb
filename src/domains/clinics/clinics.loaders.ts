import { Loader } from '../../kernel/loader';
import type { Scope } from '../../kernel/scope';
import { DEFAULT_GLUCOSE_UNITS, type GlucoseUnits } from '../glucose/summary/units';
import type { ClinicRecord, PatientTagValue } from './clinic.entity';
import { clinicsByIds, tagsOfClinics } from './clinics.repository';

/** Clinics by id, one SELECT for every clinic a request names. */
export function clinicLoader(scope: Scope): Loader<string, ClinicRecord | null> {
  return scope.loaders.get(
    'clinics.byId',
    () =>
      new Loader<string, ClinicRecord | null>(async (ids) => {
        const rows = await clinicsByIds(scope.em, ids);
        const byId = new Map(rows.map((row) => [row.id, row]));
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
