import type { EntityManager } from '@mikro-orm/postgresql';
import { sqlOf } from '../../infra/database/sql-runner';
import type { PageArgs } from '../../kernel/paging';
import { placeholders } from '../../kernel/sql';
import type { Grant, Permission } from './permission.model';
import { PermissionGrantSchema } from './permission-grant.entity';

/**
 * Every read and write of the permissions domain's table (`permission_grants`). The service and
 * the access policy hold the rules; the loaders batch; this holds the statements.
 */

export interface GrantRow {
  sharer_id: string;
  grantee_id: string;
  permissions: Permission[];
  /** The clinic whose access made the grant, if one did. */
  clinic_id: string | null;
}

/** One side of a grant: who gave it, or who received it. */
export type Side = 'sharer_id' | 'grantee_id';
const otherSide = (column: Side): Side => (column === 'sharer_id' ? 'grantee_id' : 'sharer_id');

/** The caller's direct grant on each of `targets` that has one, by target, with the clinic whose access made it. */
export async function callerGrantsOn(
  em: EntityManager,
  callerId: string,
  targets: readonly string[],
): Promise<Map<string, Grant>> {
  const rows = await sqlOf(em).reusable<{ sharer_id: string; permissions: Permission[]; clinic_id: string | null }>(
    'caller_grants_on',
    'select sharer_id, permissions, clinic_id from permission_grants where grantee_id = $1 and sharer_id = any($2::text[])',
    [callerId, targets],
  );
  return new Map(rows.map((row) => [row.sharer_id, { permissions: row.permissions, clinicId: row.clinic_id }]));
}

/**
 * Up to `args.first + 1` grants of each of `ids` on side `column`, ordered by the other
 * account's id, in one SELECT; the rows come ordered by `column`.
 */
export function grantPagesOf(
  em: EntityManager,
  column: Side,
  ids: readonly string[],
  args: PageArgs,
): Promise<GrantRow[]> {
  const other = otherSide(column);
  const after = args.after === null ? '' : ` and ${other} > $3`;
  // One prepared statement per side and per first-or-later page: their texts differ only there.
  return sqlOf(em).reusable<GrantRow>(
    `grant_pages_${column}${args.after === null ? '' : '_after'}`,
    `select sharer_id, grantee_id, permissions, clinic_id from (
       select sharer_id, grantee_id, permissions, clinic_id,
         row_number() over (partition by ${column} order by ${other}) as position
       from permission_grants where ${column} = any($1::text[])${after}
     ) ranked where position <= $2 order by ${column}, ${other}`,
    [ids, args.first + 1, ...(args.after === null ? [] : [args.after[0]])],
  );
}

/** How many grants each of `ids` has on side `column` (those with none are absent), in one SELECT. */
export async function grantCountsOf(
  em: EntityManager,
  column: Side,
  ids: readonly string[],
): Promise<Map<string, number>> {
  const rows = await sqlOf(em).rows<{ id: string; count: string }>(
    `select ${column} as id, count(*) as count from permission_grants where ${column} in (${placeholders(ids.length)}) group by ${column}`,
    [...ids],
  );
  return new Map(rows.map((row) => [row.id, Number(row.count)]));
}

/** Writes the grant of `sharerId` to `granteeId`, replacing the permissions and who made it. */
export async function saveGrant(
  em: EntityManager,
  sharerId: string,
  granteeId: string,
  permissions: Permission[],
  made: { clinicId: string | null; grantedBy: string | null },
): Promise<void> {
  const now = new Date();
  await em.upsert(
    PermissionGrantSchema,
    { sharerId, granteeId, permissions, ...made, createdTime: now, modifiedTime: now },
    {
      onConflictFields: ['sharerId', 'granteeId'],
      onConflictMergeFields: ['permissions', 'clinicId', 'grantedBy', 'modifiedTime'],
    },
  );
}

export async function removeGrant(em: EntityManager, sharerId: string, granteeId: string): Promise<void> {
  await em.nativeDelete(PermissionGrantSchema, { sharerId, granteeId });
}

/**
 * The grants made through the clinic's access: on the patient's account, or made or received
 * by the clinician.
 */
export async function removeClinicGrants(
  tx: EntityManager,
  clinicId: string,
  whose: { patientId: string } | { clinicianId: string },
): Promise<void> {
  const condition =
    'patientId' in whose
      ? { sharerId: whose.patientId }
      : { $or: [{ granteeId: whose.clinicianId }, { grantedBy: whose.clinicianId }] };
  await tx.nativeDelete(PermissionGrantSchema, { clinicId, ...condition });
}

/** The account's grants in both directions, and those it made through a clinic. */
export async function removeGrantsOfUser(em: EntityManager, userId: string): Promise<void> {
  await em.nativeDelete(PermissionGrantSchema, {
    $or: [{ sharerId: userId }, { granteeId: userId }, { grantedBy: userId, clinicId: { $ne: null } }],
  });
}
