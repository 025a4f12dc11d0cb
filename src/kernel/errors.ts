/**
 * The one error family every domain throws. Each transport maps the code exactly once:
 * GraphQL puts it in `extensions.code`, rest-compat turns it into an HTTP status and the legacy
 * error body. Anything that is not an AppError is a bug and surfaces as a 500 with a log line.
 */
export const ERROR_CODES = [
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'PASSWORD_REQUIRED',
  'NOT_FOUND',
  'INVALID',
  'CONFLICT',
  'TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'DIGEST_MISMATCH',
  'RATE_LIMITED',
  'UNAVAILABLE',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Machine-readable extras (e.g. the offending field) exposed to clients. */
    readonly details: Record<string, unknown> = {},
    /** `cause`: what went wrong inside (an unreachable dependency's error), for the log only. */
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'AppError';
  }
}

export const unauthenticated = (message = 'Authentication is required') => new AppError('UNAUTHENTICATED', message);
export const forbidden = (message = 'Not authorized for requested operation') => new AppError('FORBIDDEN', message);
export const notFound = (message: string) => new AppError('NOT_FOUND', message);
export const invalid = (message: string, field?: string) =>
  new AppError('INVALID', message, field === undefined ? {} : { field });
export const conflict = (message: string) => new AppError('CONFLICT', message);
/** How long clients are asked to wait before trying again while a dependency (database, object store) is away. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/** Refused until a budget refills: `retryAfter` (whole seconds) goes to clients, as Retry-After on HTTP. */
export const rateLimited = (message: string, retryAfter: number) =>
  new AppError('RATE_LIMITED', message, { retryAfter });
/** The seconds a RATE_LIMITED error asks its client to wait; undefined for any other error. */
export function retryAfterOf(error: unknown): number | undefined {
  if (!(error instanceof AppError) || error.code !== 'RATE_LIMITED') return undefined;
  return typeof error.details.retryAfter === 'number' ? error.details.retryAfter : undefined;
}
/** `cause` is logged with the request id, never shown: it may name endpoints, paths or keys. */
export const unavailable = (message: string, cause?: unknown) =>
  new AppError('UNAVAILABLE', message, {}, cause === undefined ? undefined : { cause });

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}
