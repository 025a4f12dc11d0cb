import { ObjectNotFoundError, ObjectStoreUnavailableError } from './object-store';

/** Error codes of failures to reach the server (connect, DNS, reset, timeouts). */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ERR_STREAM_PREMATURE_CLOSE',
  'UND_ERR_SOCKET',
]);

/**
 * S3 error codes of a server that is up but failing (besides any 5xx answer); an empty code is a
 * non-S3 answer (a proxy's error page).
 */
const SERVER_FAILURE_CODES = new Set(['', 'InternalError', 'ServiceUnavailable', 'SlowDown', 'RequestTimeout']);

/** Codes with which S3 reports a missing object (GET answers NoSuchKey, HEAD a bare 404). */
export const MISSING_CODES = new Set(['NoSuchKey', 'NotFound']);

export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

export const isMissing = (error: unknown) => MISSING_CODES.has(errorCode(error) ?? '');

/** One line describing a failure: `ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9000`. */
function describe(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length) {
    return error.errors.map(describe).join('; ');
  }
  if (!(error instanceof Error)) return String(error);
  const code = errorCode(error);
  const status = (error as { httpstatus?: unknown }).httpstatus;
  const message = (error.message || error.name) + (status ? ` (HTTP ${status})` : '');
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}

/**
 * `error` as ObjectStoreUnavailableError naming the store (`where`) and what failed: "is
 * unreachable" when the server could not be reached or failed, "refused to" when it answered no.
 */
export function storeFailure(where: string, what: string, error: unknown): Error {
  if (error instanceof ObjectStoreUnavailableError || error instanceof ObjectNotFoundError) return error;
  const code = errorCode(error);
  // set by the transport hook (minio-internals.ts) on 5xx, 429 and 408 answers
  const serverTrouble = Number((error as { httpstatus?: unknown } | null)?.httpstatus) > 0;
  const unreachable = code === undefined || NETWORK_CODES.has(code) || SERVER_FAILURE_CODES.has(code) || serverTrouble;
  const message = unreachable
    ? `${where} is unreachable: ${what} failed: ${describe(error)}`
    : `${where} refused to ${what}: ${describe(error)}`;
  return new ObjectStoreUnavailableError(message, { cause: error });
}
