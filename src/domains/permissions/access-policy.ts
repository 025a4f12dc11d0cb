import { AppError, forbidden, unauthenticated } from '../../kernel/errors';
import type { AccessTarget } from '../../kernel/access-trail';
import { isAuthenticated } from '../../kernel/principal';
import type { Scope } from '../../kernel/scope';
import type { Permission } from './permission.model';
import { callerGrants } from './permissions.loaders';

/** Permissions held on an account, and the clinic they reach the caller through (null: granted to it directly). */
export interface Grant {
  permissions: readonly Permission[];
  clinicId: string | null;
}

/**
 * Where a caller's permissions on other accounts come from: direct grants (this domain) and,
 * registered at composition, grants reaching the caller through something it belongs to (a
 * clinic's patients). Each answers for a batch of targets, an empty list where it grants nothing.
 */
export type GrantSource = (scope: Scope, callerId: string, targets: readonly string[]) => Promise<(readonly Grant[])[]>;

const directGrants: GrantSource = async (scope, callerId, targets) =>
  (await callerGrants(scope, callerId).loadMany(targets)).map((permissions) =>
    permissions ? [{ permissions, clinicId: null }] : [],
  );

function union(grants: readonly Grant[]): Permission[] | null {
  const held = grants.flatMap((grant) => grant.permissions);
  return held.length ? [...new Set(held)] : null;
}

/**
 * What a caller must hold on a target account besides being its owner or a server: one of the
 * listed permissions, any grant at all, or nothing (owner only).
 */
export type Requirement = readonly Permission[] | 'any-grant' | 'owner-only';

function satisfies(held: readonly Permission[] | null, requirement: Requirement): boolean {
  if (!held?.length || requirement === 'owner-only') return false;
  return requirement === 'any-grant' || held.some((permission) => requirement.includes(permission));
}

/**
 * The one place that answers "may this caller act on these accounts". Owners and server
 * tokens always may; anyone else needs a grant meeting the requirement. Answers for a whole set
 * of accounts with one query, batched across the request. Every answer about someone else's
 * account goes to the request's access trail (the access log): allowed or refused, and the
 * clinic whose grant let the caller in.
 */
export class AccessPolicy {
  private readonly sources: GrantSource[];

  constructor(indirect: GrantSource[] = []) {
    this.sources = [directGrants, ...indirect];
  }

  /** The targets the caller may act on; `objectIds` name what of them the operation touches, for the log. */
  async allowedTargets(
    scope: Scope,
    targets: readonly string[],
    requirement: Requirement,
    objectIds: readonly string[] = [],
  ): Promise<Set<string>> {
    const { principal, accessTrail } = scope;
    const callerId = principal.userId;
    const others = [...new Set(targets.filter((target) => target !== callerId))];
    const decided = (subjectId: string, grant: Grant | null) =>
      accessTrail.record({
        subjectId,
        outcome: grant || principal.isServer ? 'ALLOWED' : 'REFUSED',
        objectIds,
        clinicId: grant?.clinicId ?? null,
      });
    if (principal.isServer) {
      others.forEach((target) => decided(target, null));
      return new Set(targets);
    }
    if (callerId === null) {
      // A client acting for no account: refused, and recorded, since it is someone.
      if (isAuthenticated(principal)) others.forEach((target) => decided(target, null));
      return new Set();
    }
    // A failed lookup rejects (Loader.loadMany): an outage answers 503, never a refusal.
    const held = requirement === 'owner-only' ? [] : await this.grantsOn(scope, callerId, others);
    const allowed = new Set(targets.filter((target) => target === callerId));
    others.forEach((target, index) => {
      // Sources are asked direct grants first, so the log names a clinic only when it was the way in.
      const grant = (held[index] ?? []).find((candidate) => satisfies(candidate.permissions, requirement)) ?? null;
      if (grant) allowed.add(target);
      decided(target, grant);
    });
    return allowed;
  }

  /**
   * What `holderId` holds on `target` from every source (a direct grant and, say, its clinics),
   * as Tidepool's `GET /access/{sharerId}/{userId}` merges them; null when nothing.
   */
  async heldBy(scope: Scope, holderId: string, target: string): Promise<Permission[] | null> {
    const [grants] = await this.grantsOn(scope, holderId, [target]);
    return union(grants ?? []);
  }

  /** The grants the caller holds on each target, from every source, in one batched query per source. */
  private async grantsOn(scope: Scope, callerId: string, targets: readonly string[]): Promise<Grant[][]> {
    if (!targets.length) return [];
    const answers = await Promise.all(this.sources.map((source) => source(scope, callerId, targets)));
    return targets.map((_, index) => answers.flatMap((answer) => answer[index] ?? []));
  }

  /** `target`: an account, or an account with the objects of it the operation touches. */
  async isAllowed(scope: Scope, target: string | AccessTarget, requirement: Requirement): Promise<boolean> {
    const { userId, objectIds } = typeof target === 'string' ? { userId: target, objectIds: [] } : target;
    return (await this.allowedTargets(scope, [userId], requirement, objectIds)).has(userId);
  }

  /** Throws UNAUTHENTICATED for anonymous callers and `denial` (default FORBIDDEN) otherwise. */
  async assertAllowed(
    scope: Scope,
    target: string | AccessTarget,
    requirement: Requirement,
    denial: () => AppError = forbidden,
  ): Promise<void> {
    if (!isAuthenticated(scope.principal)) throw unauthenticated();
    if (!(await this.isAllowed(scope, target, requirement))) throw denial();
  }
}
