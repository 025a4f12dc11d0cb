import { NoticedCache, type Notices } from '../../infra/database/noticed-cache';
import { Loader } from '../../kernel/loader';
import type { Scope } from '../../kernel/scope';
import { membershipCounts } from './clinicians.repository';

/** The channel on which the clinicians table's trigger names each user whose memberships changed. */
export const MEMBERSHIPS_CHANGED_CHANNEL = 'islet_clinician_changed';

/** How many clinics a user is a clinician of. */
interface Memberships {
  clinics: number;
}

/**
 * Whether each user is a clinician anywhere, kept between requests: every check of access to
 * another account (a share's `user`, a record) asks what the caller holds through clinics, and
 * most callers are clinicians of none, for whom that statement can never find anything. The
 * clinicians table's trigger (migrations/Migration20261128150000_clinician_change_notices.ts)
 * names each user whose memberships changed; NoticedCache says how that reaches every instance.
 *
 * Only "none" saves anything: a user who is a clinician somewhere is still checked in the
 * database, so a membership that just ended can never be used from memory. A membership that
 * just began elsewhere is seen within the notice's delay (a refusal until then, not an access).
 */
export class ClinicMemberships {
  private readonly kept: NoticedCache<Memberships>;

  constructor(notices: Notices) {
    this.kept = new NoticedCache<Memberships>(notices, { channel: MEMBERSHIPS_CHANGED_CHANNEL, max: 20_000 });
  }

  /**
   * Whether the user may be a clinician of some clinic, batched per request. A membership a
   * transaction adds was marked `joining` before, so it is never answered from memory.
   */
  async mayBeClinician(scope: Scope, userId: string): Promise<boolean> {
    const loader = scope.loaders.get('clinics.memberships', () => {
      return new Loader<string, boolean>(async (ids) => {
        const load = async (missing: readonly string[]) => {
          const counts = await membershipCounts(scope.em, missing);
          return new Map(missing.map((id) => [id, { clinics: counts.get(id) ?? 0 }]));
        };
        const read = await this.kept.read(ids, load);
        return ids.map((id) => (read.get(id)?.clinics ?? 0) > 0);
      });
    });
    return loader.load(userId);
  }

  /** Before this instance makes the user a clinician: read from the table until the change settles. */
  joining(userId: string): void {
    this.kept.changing(userId);
  }
}
