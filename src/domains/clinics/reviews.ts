import { conflict, notFound } from '../../kernel/errors';
import type { PatientReview } from './clinic-patient.entity';

/** How many reviews of a patient are kept, newest first (Tidepool keeps ten). */
export const MAX_REVIEWS = 10;

/** The reviews with `review` added as the newest, the oldest beyond MAX_REVIEWS dropped. */
export function newestReviewsFirst(reviews: readonly PatientReview[], review: PatientReview): PatientReview[] {
  return [review, ...reviews].slice(0, MAX_REVIEWS);
}

/**
 * The reviews without the newest: 404 when there is none; 409 when `by` (the reverting
 * clinician; null for a server token, which may revert any) did not make it.
 */
export function revertNewest(reviews: readonly PatientReview[], by: string | null): PatientReview[] {
  const [newest, ...rest] = reviews;
  if (!newest) throw notFound('The patient has no review to revert');
  if (by !== null && newest.clinicianId !== by)
    throw conflict('The last review was made by another clinician; only they can revert it');
  return rest;
}
