import { Loader } from '../../kernel/loader';
import type { PageArgs } from '../../kernel/paging';
import type { Scope } from '../../kernel/scope';
import * as repository from './clinicians.repository';
import type { ClinicianFilter, ClinicianView } from './clinicians.repository';

/** The sort key of a listed clinician: created time, then `m<userId>` or `i<inviteId>`. */
export const clinicianKey = (clinician: ClinicianView): [string, string] => [
  clinician.createdTime.toISOString(),
  clinician.userId !== null ? `m${clinician.userId}` : `i${clinician.inviteId}`,
];

/**
 * A page of the clinicians of many clinics (members and invitations, oldest first), one row
 * more than asked, past the first `offset`: the clinics of a request cost one SELECT together.
 */
export function clinicianPages(scope: Scope, filter: ClinicianFilter, args: PageArgs): Loader<string, ClinicianView[]> {
  return scope.loaders.get(
    `clinicians.pages:${JSON.stringify([filter, args])}`,
    () =>
      new Loader<string, ClinicianView[]>(async (clinicIds) => {
        const rows = await repository.clinicianPages(scope.em, clinicIds, filter, args);
        const byClinic = new Map<string, ClinicianView[]>(clinicIds.map((id) => [id, []]));
        for (const row of rows) byClinic.get(row.clinicId)?.push(row);
        return clinicIds.map((id) => byClinic.get(id) ?? []);
      }),
  );
}

/** How many clinicians (members and invitations) each clinic lists under a filter, in one SELECT. */
export function clinicianCounts(scope: Scope, filter: ClinicianFilter): Loader<string, number> {
  return scope.loaders.get(
    `clinicians.counts:${JSON.stringify(filter)}`,
    () =>
      new Loader<string, number>(async (clinicIds) => {
        const counts = await repository.clinicianCounts(scope.em, clinicIds, filter);
        return clinicIds.map((id) => counts.get(id) ?? 0);
      }),
  );
}

/** Clinician records by `clinicId:userId`, one SELECT for a request's lookups. */
export function clinicianLoader(scope: Scope): Loader<string, ClinicianView | null> {
  return scope.loaders.get(
    'clinicians.byKey',
    () =>
      new Loader<string, ClinicianView | null>(async (keys) => {
        const pairs = keys.map((key) => key.split(':') as [string, string]);
        const rows = await repository.membersByKeys(scope.em, pairs);
        const byKey = new Map(rows.map((row) => [`${row.clinicId}:${row.userId}`, row]));
        return keys.map((key) => byKey.get(key) ?? null);
      }),
  );
}
