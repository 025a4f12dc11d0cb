import type { AccessOutcome } from '../../kernel/access-trail';
import type { Principal } from '../../kernel/principal';

/**
 * Whether a reader of an access log sees who an accessor is by name, not only by id. An allowed
 * access came through a grant the account's holder gave (to that person, or to a clinic whose
 * clinician it was), custodianship or a clinic's admin's own staff: someone the reader already
 * knows. A refused attempt may come from anyone, whose login name (an email address) is not the
 * reader's to see; servers see everything.
 */
export function mayNameAccessor(reader: Principal, outcome: AccessOutcome): boolean {
  return reader.isServer || outcome === 'ALLOWED';
}
