import { Loader } from '../../kernel/loader';
import type { PageArgs } from '../../kernel/paging';
import type { Scope } from '../../kernel/scope';
import { likeEscaped, placeholders, rowDate } from '../../kernel/sql';
import type { ClinicianRole } from './clinician.entity';

/**
 * A clinician as lists show it: a member (userId set) or an invitation not yet accepted
 * (inviteId set, no userId), as Tidepool lists both among a clinic's clinicians.
 */
export interface ClinicianView {
  clinicId: string;
  userId: string | null;
  inviteId: string | null;
  email: string | null;
  name: string | null;
  roles: ClinicianRole[];
  createdTime: Date;
  updatedTime: Date;
  /** In an invitee's own list: whether it may answer the invitation without the mailed key. */
  canAccept?: boolean;
}

/** Filters of a clinic's clinician list; `email` is matched lower-cased, `search` over name and email. */
export interface ClinicianFilter {
  search?: string | null;
  role?: ClinicianRole | null;
  email?: string | null;
}

/** Members and invitations in one list; `key` orders rows of the same time and names them in cursors. */
const LISTED = (clinics: number) => `
  select clinic_id, user_id, null as invite_id, email, name, roles, created_time, updated_time, 'm' || user_id as key
    from clinicians where clinic_id in (${placeholders(clinics)})
  union all
  select clinic_id, null, id, email, name, roles, created_time, updated_time, 'i' || id
    from clinician_invites where clinic_id in (${placeholders(clinics)})`;

const likePattern = (text: string) => `%${likeEscaped(text)}%`;

function conditions(filter: ClinicianFilter): { sql: string; params: unknown[] } {
  const sql: string[] = [];
  const params: unknown[] = [];
  if (filter.search) {
    sql.push("(name ilike ? escape '\\' or email ilike ? escape '\\')");
    params.push(likePattern(filter.search), likePattern(filter.search));
  }
  if (filter.role) {
    sql.push('? = any(roles)');
    params.push(filter.role);
  }
  if (filter.email) {
    sql.push('lower(email) = ?');
    params.push(filter.email.toLowerCase());
  }
  return { sql: sql.length ? sql.join(' and ') : 'true', params };
}

export function toClinicianView(row: Record<string, unknown>): ClinicianView {
  return {
    clinicId: row.clinic_id as string,
    userId: (row.user_id as string | null) ?? null,
    inviteId: (row.invite_id as string | null) ?? null,
    email: (row.email as string | null) ?? null,
    name: (row.name as string | null) ?? null,
    roles: row.roles as ClinicianRole[],
    createdTime: rowDate(row.created_time)!,
    updatedTime: rowDate(row.updated_time)!,
  };
}

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
        const { sql, params } = conditions(filter);
        const keyset = args.after ? ' and (created_time, key) > (?, ?)' : '';
        const rows = await scope.em.getConnection().execute<Record<string, unknown>[]>(
          `select * from (
             select *, row_number() over (partition by clinic_id order by created_time, key) as position
               from (${LISTED(clinicIds.length)}) listed where ${sql}${keyset}
           ) ranked where position > ? and position <= ? order by created_time, key`,
          [
            ...clinicIds,
            ...clinicIds,
            ...params,
            ...(args.after ? [new Date(args.after[0]), args.after[1]] : []),
            args.offset ?? 0,
            (args.offset ?? 0) + args.first + 1,
          ],
        );
        const byClinic = new Map<string, ClinicianView[]>(clinicIds.map((id) => [id, []]));
        for (const row of rows) byClinic.get(row.clinic_id as string)?.push(toClinicianView(row));
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
        const { sql, params } = conditions(filter);
        const rows = await scope.em
          .getConnection()
          .execute<{ clinic_id: string; count: string }[]>(
            `select clinic_id, count(*) as count from (${LISTED(clinicIds.length)}) listed where ${sql} group by clinic_id`,
            [...clinicIds, ...clinicIds, ...params],
          );
        const counts = new Map(rows.map((row) => [row.clinic_id, Number(row.count)]));
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
        const rows = await scope.em.getConnection().execute<Record<string, unknown>[]>(
          `select clinic_id, user_id, null as invite_id, email, name, roles, created_time, updated_time
             from clinicians where (clinic_id, user_id) in (${pairs.map(() => '(?, ?)').join(', ')})`,
          pairs.flat(),
        );
        const byKey = new Map(rows.map((row) => [`${row.clinic_id as string}:${row.user_id as string}`, row]));
        return keys.map((key) => {
          const row = byKey.get(key);
          return row ? toClinicianView(row) : null;
        });
      }),
  );
}
