import type { ConfirmationRecord } from './confirmation.entity';

/** Who made a confirmation, as Tidepool shows it (confirm/models/creator.v1.yaml). */
export interface TidepoolCreator {
  userid: string;
  profile: { fullName: string; patient: Record<string, unknown> };
}

/** A confirmation on the wire: Tidepool's model (confirm/models/confirmation.v1.yaml). */
export interface TidepoolConfirmation {
  key: string;
  type: string;
  status: string;
  email: string;
  creatorId: string;
  created: string;
  modified?: string;
  creator?: TidepoolCreator;
  context?: string;
  restrictions?: { canAccept: boolean; requiredIdp?: string };
  expiresAt: string;
}

export interface TidepoolExtras {
  creator?: TidepoolCreator;
  restrictions?: { canAccept: boolean; requiredIdp?: string };
}

/**
 * The one mapping from a stored confirmation to Tidepool's JSON. `key` is the confirmation's
 * public id: the secret key is never stored, so a list cannot show it; whoever may list a
 * confirmation may also act on it by this id (its creator cancels, its recipient accepts).
 * `context` is a JSON string, as hydrophone stores it.
 */
export function toTidepoolConfirmation(
  confirmation: ConfirmationRecord,
  extras: TidepoolExtras = {},
): TidepoolConfirmation {
  return {
    key: confirmation.id,
    type: confirmation.type,
    status: confirmation.status,
    email: confirmation.email,
    creatorId: confirmation.creatorId ?? '',
    created: confirmation.created.toISOString(),
    ...(confirmation.modified ? { modified: confirmation.modified.toISOString() } : {}),
    ...(extras.creator ? { creator: extras.creator } : {}),
    ...(confirmation.context ? { context: JSON.stringify(confirmation.context) } : {}),
    ...(extras.restrictions ? { restrictions: extras.restrictions } : {}),
    expiresAt: confirmation.expiresAt.toISOString(),
  };
}
