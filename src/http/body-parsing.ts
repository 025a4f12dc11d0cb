import type { IncomingHttpHeaders } from 'node:http';
import { AppError } from '../kernel/errors';

/** Whether the request announces a body (a non-zero Content-Length or a Transfer-Encoding). */
export function hasBody(headers: IncomingHttpHeaders): boolean {
  const length = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

interface BodyParserFailure {
  type?: string;
  message?: string;
  limit?: number;
  status?: number;
  /** Set by zlib when a compressed body does not decompress. */
  code?: string;
}

/**
 * Where a body failed to parse, without the parser's excerpt of it: JSON.parse quotes the text
 * around the mistake, which may be a password typed into the wrong place.
 */
function whereParsingFailed(message = ''): string {
  const position = /position (\d+)/.exec(message)?.[1];
  if (position !== undefined) return `not valid JSON at position ${position}`;
  return /end of JSON input/i.test(message) ? 'the JSON ends too early' : 'not valid JSON';
}

/**
 * body-parser's failures as AppErrors, so each transport answers them in its own format. `what`
 * names the body in the reason ("JSON body", "form body").
 */
export function bodyError(error: unknown, what: string): AppError | undefined {
  const failure = (error ?? {}) as BodyParserFailure;
  switch (failure.type) {
    case 'entity.parse.failed':
      return new AppError('INVALID', `Malformed ${what}: ${whereParsingFailed(failure.message)}`);
    case 'entity.too.large':
      return new AppError('TOO_LARGE', `The ${what} is larger than the limit of ${failure.limit} bytes`);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppError('UNSUPPORTED_MEDIA_TYPE', `The ${what} cannot be read: ${failure.message}`);
    case 'request.aborted':
    case 'request.size.invalid':
      return new AppError('INVALID', `The ${what} was incomplete`);
  }
  // Some failures carry only a status, e.g. a body whose Content-Encoding does not match its
  // bytes: any 4xx is the client's to fix, never a 500.
  const status = failure.status ?? 0;
  if (status < 400 || status >= 500) return undefined;
  if (failure.code?.startsWith('Z_'))
    return new AppError('INVALID', `The ${what} does not match its Content-Encoding: ${failure.message}`);
  if (status === 413) return new AppError('TOO_LARGE', `The ${what} is too large: ${failure.message}`);
  if (status === 415) return new AppError('UNSUPPORTED_MEDIA_TYPE', `The ${what} cannot be read: ${failure.message}`);
  return new AppError('INVALID', `The ${what} cannot be read: ${failure.message}`);
}
