import type { ErrorCode } from '../kernel/errors';

/** The HTTP half of "one error family mapped once per transport": rest-compat, auth and the app answer with it. */
export const HTTP_STATUS: Record<ErrorCode, number> = {
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  PASSWORD_REQUIRED: 403,
  NOT_FOUND: 404,
  INVALID: 400,
  CONFLICT: 409,
  TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  DIGEST_MISMATCH: 400,
  RATE_LIMITED: 429,
  UNAVAILABLE: 503,
};

/** The specification's error body (§2.11). */
export interface LegacyErrorBody {
  code: number;
  reason: string;
  error: number;
}

export function errorBody(status: number, reason: string): LegacyErrorBody {
  return { code: status, reason, error: 0 };
}
