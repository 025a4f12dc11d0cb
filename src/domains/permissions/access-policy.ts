import { AppError, forbidden, unauthenticated } from '../../kernel/errors';
import type { AccessTarget } from '../../kernel/access-trail';
import { isAuthenticated } from '../../kernel/principal';
import type { Scope } from '../../kernel/scope';
import type { Grant, Permission } from './permission.model';
import { callerGrants } from './permissions.loaders';
import type { ReceivedGrants } from './received-grants';

export type { Grant } from './permission.model';

/**
 * Whether the caller may act on accounts at account level (their permissions, credentials,
 * deletion) with what reaches it through the clinic: the clinic's rules decide (its admins).
 */
export type ClinicControl = (scope: Scope, clinicId: string) => Promise<boolean>;

/**
 * Where a caller's permissions on other accounts come from: direct grants (this domain) and,
 * registered at composition, grants reaching the caller through something it belongs to (a
 * clinic's patients). Each answers for a batch of targets, an empty list where it grants nothing.
 */
export type GrantSource = (scope: Scope, callerId: string, targets: readonly string[]) => Promise<(readonly Grant[])[]>;

/** What the caller's grants kept in memory can tell: which targets it holds nothing on, or not enough. */
export type KeptGrants = Pick<ReceivedGrants, 'of'>;

/**
 * Whether a grant could meet `requirement`. For account-level acts the clinic's rules decide
 * too (satisfies, below); this asks only what the grant holds.
 */
function mayMeet(grant: Grant | undefined, requirement: Requirement): boolean {
  if (!grant || requirement === 'owner-only') return false;
  if (requirement === 'account-control') return grant.permissions.includes('custodian');
  return grant.permissions.some((permission) => requirement.includes(permission));
}

function union(grants: readonly Grant[]): Permission[] | null {
  const held = grants.flatMap((grant) => grant.permissions);
  return held.length ? [...new Set(held)] : null;
}

/**
 * What a caller must hold on a target account besides being its owner or a server: one of the
 * listed permissions; `account-control`, custodian usable for acts on the account itself
 * (changing who may access it, its credentials, deleting it); or nothing (owner only).
 */
export type Requirement = readonly Permission[] | 'account-control' | 'owner-only';

/**
 * Reading an account's data (glucose data, datasets, summaries, device logs): `view`, or
 * `custodian`. As Tidepool's platform checks `view` for reads: `upload` or `note` alone read nothing.
 */
export const MAY_READ_DATA: Requirement = ['view', 'custodian'];

/**
 * Whether `grant` meets `requirement`. For account-level acts, custodian reaching the caller
 * through a clinic counts only where the clinic lets the caller act so (`controlled`).
 */
function satisfies(grant: Grant, requirement: Requirement, controlled: ReadonlySet<string>): boolean {
  if (requirement === 'owner-only') return false;
  if (requirement === 'account-control')
    return grant.permissions.includes('custodian') && (grant.clinicId === null || controlled.has(grant.clinicId));
  return grant.permissions.some((permission) => requirement.includes(permission));
}

/**
 * The one place that answers "may this caller act on these accounts". Owners and server
 * tokens always may; anyone else needs a grant meeting the requirement. Answers for a whole set
 * of accounts with one query, batched across the request. Every answer about someone else's
 * account goes to the request's access trail (the access log): allowed or refused, and the
 * clinic whose grant let the caller in.
 */
export class AccessPolicy {
  /**
   * `clinicControl`: without it, nothing reaching a caller through a clinic serves account-level
   * acts. `kept`: the grants callers received, kept between requests (ReceivedGrants), used to refuse.
   */
  constructor(
    private readonly indirect: GrantSource[] = [],
    private readonly clinicControl: ClinicControl = async () => false,
    private readonly kept: KeptGrants | null = null,
  ) {}

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
    const grants = await this.grantsMeeting(scope, callerId, others, requirement);
    const allowed = new Set(targets.filter((target) => target === callerId));
    others.forEach((target, index) => {
      if (grants[index]) allowed.add(target);
      decided(target, grants[index] ?? null);
    });
    return allowed;
  }

  /**
   * Like assertAllowed, answering which grant let the caller in: null for the owner and servers.
   * An act that changes the account records that grant's clinic with what it made.
   */
  async grantUsed(scope: Scope, target: string, requirement: Requirement): Promise<Grant | null> {
    await this.assertAllowed(scope, target, requirement);
    const { isServer, userId } = scope.principal;
    if (isServer || userId === target) return null;
    const [grant] = await this.grantsMeeting(scope, userId!, [target], requirement);
    return grant ?? null;
  }

  /**
   * For each target, the first grant of the caller that meets the requirement, or null. Sources
   * are asked direct grants first, so the log names a clinic only when it was the way in.
   */
  private async grantsMeeting(
    scope: Scope,
    callerId: string,
    targets: readonly string[],
    requirement: Requirement,
  ): Promise<(Grant | null)[]> {
    if (requirement === 'owner-only') return targets.map(() => null);
    const held = await this.grantsOn(scope, callerId, targets, requirement);
    const controlled =
      requirement === 'account-control' ? await this.controlledClinics(scope, held) : new Set<string>();
    return held.map((grants) => grants.find((grant) => satisfies(grant, requirement, controlled)) ?? null);
  }

  /** The clinics, among those custodian reaches the caller through, whose rules let it act at account level. */
  private async controlledClinics(scope: Scope, held: readonly Grant[][]): Promise<Set<string>> {
    const clinics = [
      ...new Set(
        held
          .flat()
          .flatMap((grant) => (grant.clinicId && grant.permissions.includes('custodian') ? [grant.clinicId] : [])),
      ),
    ];
    const answers = await Promise.all(clinics.map((clinicId) => this.clinicControl(scope, clinicId)));
    return new Set(clinics.filter((_, index) => answers[index]));
  }

  /**
   * What `holderId` holds on `target` from every source (a direct grant and, say, its clinics),
   * as Tidepool's `GET /access/{sharerId}/{userId}` merges them; null when nothing.
   */
  async heldBy(scope: Scope, holderId: string, target: string): Promise<Permission[] | null> {
    const [grants] = await this.grantsOn(scope, holderId, [target]);
    return union(grants ?? []);
  }

  /**
   * The grants the caller holds on each target, from every source, in one batched query per
   * source; with `requirement`, each direct grant that cannot meet it may come from memory.
   */
  private async grantsOn(
    scope: Scope,
    callerId: string,
    targets: readonly string[],
    requirement?: Requirement,
  ): Promise<Grant[][]> {
    if (!targets.length) return [];
    const answers = await Promise.all([
      this.directGrants(scope, callerId, targets, requirement),
      ...this.indirect.map((source) => source(scope, callerId, targets)),
    ]);
    return targets.map((_, index) => answers.flatMap((answer) => answer[index] ?? []));
  }

  /**
   * The caller's direct grant on each target. Where the caller's received grants are kept and the
   * kept grant on a target (or its absence) cannot meet `requirement`, memory answers: a refusal.
   * A grant that could let the caller in is always read from the table, so a share ended on
   * another instance a moment ago is never honoured.
   */
  private async directGrants(
    scope: Scope,
    callerId: string,
    targets: readonly string[],
    requirement?: Requirement,
  ): Promise<(readonly Grant[])[]> {
    const kept = requirement && this.kept ? await this.kept.of(scope, callerId) : null;
    const read = kept ? targets.filter((target) => mayMeet(kept.get(target), requirement!)) : targets;
    const fresh = new Map<string, Grant | null>();
    if (read.length)
      (await callerGrants(scope, callerId).loadMany(read)).forEach((grant, index) => fresh.set(read[index]!, grant));
    return targets.map((target) => {
      const grant = fresh.has(target) ? fresh.get(target) : kept!.get(target);
      return grant ? [grant] : [];
    });
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
