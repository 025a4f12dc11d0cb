import { AppError, forbidden, unauthenticated } from '../../kernel/errors';
import { isAuthenticated } from '../../kernel/principal';
import type { Scope } from '../../kernel/scope';
import type { Permission } from './permission.model';
import { callerGrants } from './permissions.loaders';

/**
 * Where a caller's permissions on other accounts come from: direct grants (this domain) and,
 * registered at composition, grants reaching the caller through something it belongs to (a
 * clinic's patients). Each answers for a batch of targets, null where it grants nothing.
 */
export type GrantSource = (
  scope: Scope,
  callerId: string,
  targets: readonly string[],
) => Promise<(readonly Permission[] | null)[]>;

const directGrants: GrantSource = (scope, callerId, targets) => callerGrants(scope, callerId).loadMany(targets);

function union(sets: (readonly Permission[] | null)[]): Permission[] | null {
  const held = sets.filter((set): set is readonly Permission[] => set !== null).flat();
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
 * of accounts with one query, batched across the request.
 */
export class AccessPolicy {
  private readonly sources: GrantSource[];

  constructor(indirect: GrantSource[] = []) {
    this.sources = [directGrants, ...indirect];
  }

  async allowedTargets(scope: Scope, targets: readonly string[], requirement: Requirement): Promise<Set<string>> {
    const { principal } = scope;
    if (principal.isServer) return new Set(targets);
    const callerId = principal.userId;
    if (callerId === null) return new Set();
    const others = [...new Set(targets.filter((target) => target !== callerId))];
    // A failed lookup rejects (Loader.loadMany): an outage answers 503, never a refusal.
    const held = requirement === 'owner-only' ? [] : await this.heldOn(scope, callerId, others);
    const allowed = new Set(targets.filter((target) => target === callerId));
    others.forEach((target, index) => {
      if (satisfies(held[index] ?? null, requirement)) allowed.add(target);
    });
    return allowed;
  }

  /**
   * What `holderId` holds on `target` from every source (a direct grant and, say, its clinics),
   * as Tidepool's `GET /access/{sharerId}/{userId}` merges them; null when nothing.
   */
  async heldBy(scope: Scope, holderId: string, target: string): Promise<Permission[] | null> {
    const [held] = await this.heldOn(scope, holderId, [target]);
    return held ?? null;
  }

  /** What the caller holds on each target, from every source, in one batched query per source. */
  private async heldOn(scope: Scope, callerId: string, targets: readonly string[]): Promise<(Permission[] | null)[]> {
    if (!targets.length) return [];
    const answers = await Promise.all(this.sources.map((source) => source(scope, callerId, targets)));
    return targets.map((_, index) => union(answers.map((answer) => answer[index] ?? null)));
  }

  async isAllowed(scope: Scope, target: string, requirement: Requirement): Promise<boolean> {
    return (await this.allowedTargets(scope, [target], requirement)).has(target);
  }

  /** Throws UNAUTHENTICATED for anonymous callers and `denial` (default FORBIDDEN) otherwise. */
  async assertAllowed(
    scope: Scope,
    target: string,
    requirement: Requirement,
    denial: () => AppError = forbidden,
  ): Promise<void> {
    if (!isAuthenticated(scope.principal)) throw unauthenticated();
    if (!(await this.isAllowed(scope, target, requirement))) throw denial();
  }
}
