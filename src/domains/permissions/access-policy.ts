import { AppError, forbidden, unauthenticated } from '../../kernel/errors';
import { isAuthenticated } from '../../kernel/principal';
import type { Scope } from '../../kernel/scope';
import type { Permission } from './permission.model';
import { callerGrants } from './permissions.loaders';

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
  async allowedTargets(scope: Scope, targets: readonly string[], requirement: Requirement): Promise<Set<string>> {
    const { principal } = scope;
    if (principal.isServer) return new Set(targets);
    const callerId = principal.userId;
    if (callerId === null) return new Set();
    const others = [...new Set(targets.filter((target) => target !== callerId))];
    // A failed lookup rejects (Loader.loadMany): an outage answers 503, never a refusal.
    const held = requirement === 'owner-only' ? [] : await callerGrants(scope, callerId).loadMany(others);
    const allowed = new Set(targets.filter((target) => target === callerId));
    others.forEach((target, index) => {
      if (satisfies(held[index] ?? null, requirement)) allowed.add(target);
    });
    return allowed;
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
