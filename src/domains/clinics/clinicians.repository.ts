import type { EntityManager } from '@mikro-orm/postgresql';
import { sqlOf } from '../../infra/database/sql-runner';
import type { PageArgs, SortKey } from '../../kernel/paging';
import { likeEscaped, placeholders, rowDate } from '../../kernel/sql';
import { claimableBy, type DatedAddress } from './clinic-accounts';
import {
  ClinicianInviteSchema,
  ClinicianSchema,
  type ClinicianInviteRecord,
  type ClinicianRecord,
  type ClinicianRole,
} from './clinician.entity';

/**
 * Every statement on a clinic's clinicians (`clinicians`) and their invitations
 * (`clinician_invites`). The services and loaders hold the rules; this holds the statements.
 */

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

/** A member as the admin rules read it (clinician-rules.ts). */
export interface MemberRoles {
  userId: string;
  roles: ClinicianRole[];
  createdTime: Date;
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

function toClinicianView(row: Record<string, unknown>): ClinicianView {
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

/**
 * A page of the clinicians of many clinics (members and invitations, oldest first), one row
 * more than asked, past the first `offset`, in one SELECT.
 */
export async function clinicianPages(
  em: EntityManager,
  clinicIds: readonly string[],
  filter: ClinicianFilter,
  args: PageArgs,
): Promise<ClinicianView[]> {
  const { sql, params } = conditions(filter);
  const keyset = args.after ? ' and (created_time, key) > (?, ?)' : '';
  const rows = await sqlOf(em).rows(
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
  return rows.map(toClinicianView);
}

/** How many clinicians (members and invitations) each clinic lists under a filter, in one SELECT. */
export async function clinicianCounts(
  em: EntityManager,
  clinicIds: readonly string[],
  filter: ClinicianFilter,
): Promise<Map<string, number>> {
  const { sql, params } = conditions(filter);
  const rows = await sqlOf(em).rows<{ clinic_id: string; count: string }>(
    `select clinic_id, count(*) as count from (${LISTED(clinicIds.length)}) listed where ${sql} group by clinic_id`,
    [...clinicIds, ...clinicIds, ...params],
  );
  return new Map(rows.map((row) => [row.clinic_id, Number(row.count)]));
}

/** Members by (clinic, user) pairs, in one SELECT. */
export async function membersByKeys(em: EntityManager, pairs: readonly [string, string][]): Promise<ClinicianView[]> {
  const rows = await sqlOf(em).rows(
    `select clinic_id, user_id, null as invite_id, email, name, roles, created_time, updated_time
       from clinicians where (clinic_id, user_id) in (${pairs.map(() => '(?, ?)').join(', ')})`,
    pairs.flat(),
  );
  return rows.map(toClinicianView);
}

/** A user's roles in each of these clinics it is a member of, in one SELECT. */
export function rolesInClinics(
  em: EntityManager,
  userId: string,
  clinicIds: readonly string[],
): Promise<{ clinic_id: string; roles: ClinicianRole[] }[]> {
  return sqlOf(em).rows(
    `select clinic_id, roles from clinicians where user_id = ? and clinic_id in (${placeholders(clinicIds.length)})`,
    [userId, ...clinicIds],
  );
}

/** Every member of the clinic, locked until the transaction ends, so two admins cannot demote each other at once. */
export async function lockMembers(tx: EntityManager, clinicId: string): Promise<MemberRoles[]> {
  const rows = await sqlOf(tx).rows<{ user_id: string; roles: ClinicianRole[]; created_time: unknown }>(
    'select user_id, roles, created_time from clinicians where clinic_id = ? order by user_id for update',
    [clinicId],
  );
  return rows.map((row) => ({ userId: row.user_id, roles: row.roles, createdTime: rowDate(row.created_time)! }));
}

/** Whether a member of the clinic has this (lower-cased) address. */
export async function hasMemberWithEmail(em: EntityManager, clinicId: string, email: string): Promise<boolean> {
  const rows = await sqlOf(em).rows('select user_id from clinicians where clinic_id = ? and lower(email) = ? limit 1', [
    clinicId,
    email,
  ]);
  return rows.length > 0;
}

/** How many clinics each of the users is a clinician of (prepared: asked for most callers of a share or a record). */
export async function membershipCounts(em: EntityManager, userIds: readonly string[]): Promise<Map<string, number>> {
  const rows = await sqlOf(em).reusable<{ user_id: string; clinics: number }>(
    'clinician_membership_counts',
    'select user_id, count(*)::int as clinics from clinicians where user_id = any($1::text[]) group by user_id',
    [userIds],
  );
  return new Map(rows.map((row) => [row.user_id, row.clinics]));
}

/** Writes a member; one already there breaks the primary key (isUniqueViolation). */
export async function insertClinician(em: EntityManager, row: ClinicianRecord): Promise<void> {
  await em.insert(ClinicianSchema, row);
}

/** Changes a member's fields, answering the member as stored. */
export async function updateMember(
  tx: EntityManager,
  clinicId: string,
  userId: string,
  changes: Partial<ClinicianRecord>,
): Promise<ClinicianRecord> {
  await tx.nativeUpdate(ClinicianSchema, { clinicId, userId }, changes);
  return tx.findOneOrFail(ClinicianSchema, { clinicId, userId }, { refresh: true });
}

export async function deleteMember(tx: EntityManager, clinicId: string, userId: string): Promise<void> {
  await tx.nativeDelete(ClinicianSchema, { clinicId, userId });
}

/** An account is deleted: its memberships go; the clinics it was a member of. */
export async function deleteMembershipsOf(em: EntityManager, userId: string): Promise<string[]> {
  const rows = await sqlOf(em).rows<{ clinic_id: string }>(
    'delete from clinicians where user_id = ? returning clinic_id',
    [userId],
  );
  return rows.map((row) => row.clinic_id);
}

/** Writes an invitation; one to the same address breaks its unique index (isUniqueViolation). */
export async function insertInvite(tx: EntityManager, invite: ClinicianInviteRecord): Promise<void> {
  await tx.insert(ClinicianInviteSchema, invite);
}

export async function touchInvite(tx: EntityManager, id: string, updatedTime: Date): Promise<void> {
  await tx.nativeUpdate(ClinicianInviteSchema, { id }, { updatedTime });
}

/** Deletes an invitation: false when it was already gone. */
export async function deleteInvite(tx: EntityManager, id: string): Promise<boolean> {
  return (await tx.nativeDelete(ClinicianInviteSchema, { id })) > 0;
}

/** The invitations an account could claim (claimableBy) go with it. */
export async function deleteClaimableInvites(em: EntityManager, addresses: readonly DatedAddress[]): Promise<void> {
  await em.nativeDelete(ClinicianInviteSchema, claimableBy(addresses));
}

export function inviteOfClinic(em: EntityManager, clinicId: string, id: string): Promise<ClinicianInviteRecord | null> {
  return em.findOne(ClinicianInviteSchema, { id, clinicId });
}

/** The addresses whose invitations an account is shown: each with when it became the account's, and the verified ones. */
export interface InviteeAddresses {
  dated: DatedAddress[];
  verified: string[];
}

/** MikroORM conditions for the invitations listed to an account: to a verified address, or claimableBy. */
const listedTo = ({ dated, verified }: InviteeAddresses) => ({
  $or: [claimableBy(dated), { email: { $in: verified } }],
});

/** An invitation by id, only if listed to the account (`to`), or any with `to` null. */
export function findInvite(
  em: EntityManager,
  id: string,
  to: InviteeAddresses | null,
): Promise<ClinicianInviteRecord | null> {
  return em.findOne(ClinicianInviteSchema, to ? { $and: [{ id }, listedTo(to)] } : { id });
}

/** The invitations listed to an account, oldest first, `first` + 1 of them after the keyset (created time, `i<id>`). */
export function invitesListedTo(
  em: EntityManager,
  to: InviteeAddresses,
  first: number,
  after: SortKey | null | undefined,
): Promise<ClinicianInviteRecord[]> {
  const listed = listedTo(to);
  return em.find(ClinicianInviteSchema, after ? { $and: [listed, { $or: keysetAfter(after) }] } : listed, {
    orderBy: { createdTime: 'asc', id: 'asc' },
    limit: first + 1,
  });
}

export function countInvitesListedTo(em: EntityManager, to: InviteeAddresses): Promise<number> {
  return em.count(ClinicianInviteSchema, listedTo(to));
}

/** MikroORM's keyset condition for invites after (created time, `i<id>`). */
function keysetAfter(after: SortKey) {
  const time = new Date(after[0] as string);
  const id = String(after[1]).slice(1);
  return [{ createdTime: { $gt: time } }, { createdTime: time, id: { $gt: id } }];
}
