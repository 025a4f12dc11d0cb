import type { IncomingHttpHeaders } from 'node:http';
import { Upload } from '../src/kernel/upload';
import { hasBody } from '../src/http/body-parsing';
import { assertDigestMD5, assertMediaType } from '../src/kernel/content';
import { AppError, invalid } from '../src/kernel/errors';
import { parseDateTime } from '../src/kernel/validation';
import type { RestRequest } from './route';

/** Wire details of binary bodies and their headers, turned into GraphQL variables. */

function single(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}

export function headerInvalid(name: string, why: string): AppError {
  return invalid(`header "${name}" is invalid: ${why}`, name);
}

export function requiredHeader(headers: IncomingHttpHeaders, name: string): string {
  const value = single(headers, name);
  if (value === undefined || value.trim() === '') throw invalid(`header "${name}" is missing`, name);
  return value.trim();
}

/**
 * `Digest: md5=<base64>` (RFC 3230; the algorithm name in any case) → the base64 digest. A
 * repeated header (which Node joins with commas) or another algorithm is refused.
 */
export function digestHeader(headers: IncomingHttpHeaders, { required }: { required: boolean }): string | undefined {
  const value = single(headers, 'Digest');
  if (value === undefined) {
    if (required) throw invalid('header "Digest" is missing; send Digest: md5=<base64 MD5 of the body>', 'Digest');
    return undefined;
  }
  if (value.includes(',')) throw headerInvalid('Digest', 'it was sent more than once or lists several digests');
  const separator = value.indexOf('=');
  const algorithm = value.slice(0, separator).trim();
  if (separator < 0 || algorithm.toLowerCase() !== 'md5')
    throw headerInvalid('Digest', `expected md5=<base64 MD5>, got "${value.slice(0, 40)}"`);
  try {
    return assertDigestMD5(value.slice(separator + 1).trim(), 'Digest');
  } catch {
    throw headerInvalid('Digest', 'the md5 value must be the base64 of 16 bytes (24 characters)');
  }
}

export function dateTimeHeader(headers: IncomingHttpHeaders, name: string): string {
  const value = requiredHeader(headers, name);
  try {
    return parseDateTime(value, name).toISOString();
  } catch {
    throw headerInvalid(name, `"${value.slice(0, 40)}" is not an RFC 3339 date-time such as 2024-01-02T03:04:05Z`);
  }
}

/** The request body as an Upload, or null when the request has none. */
export function bodyUpload({ headers, raw }: RestRequest, mediaType: string): Upload | null {
  if (!hasBody(headers)) return null;
  const length = Number(headers['content-length']);
  const declaredSize = Number.isSafeInteger(length) ? length : undefined;
  return new Upload(async () => ({ stream: raw, mediaType, declaredSize }));
}

/**
 * `Content-Type`, `Digest` and the body of a blob upload, as the blob mutations take them. The
 * specification requires the Digest of content; a request without a body has no content (the
 * blob stays `created`) and may leave it out.
 */
/** A JSON body as an Upload: `Content-Type` must be application/json, and `empty` says what to send instead of nothing. */
export function jsonUpload(request: RestRequest, empty: string): Upload {
  const mediaType = requiredHeader(request.headers, 'Content-Type');
  if (!/^application\/json\s*(;|$)/i.test(mediaType))
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', `Content-Type "${mediaType}" is not supported; send application/json`);
  const content = bodyUpload(request, mediaType);
  if (!content) throw invalid(empty, 'body');
  return content;
}

export function blobContent(request: RestRequest): { mediaType: string; digest?: string; content: Upload | null } {
  const mediaType = assertMediaType(requiredHeader(request.headers, 'Content-Type'), 'Content-Type');
  const content = bodyUpload(request, mediaType);
  const digest = digestHeader(request.headers, { required: content !== null });
  return { mediaType, digest, content };
}

/** What a download answers with besides its bytes: media type, length and `Digest: MD5=…`. */
export function contentHeaders(stored: { mediaType: string; size?: number | null; digestMD5?: string | null }) {
  return {
    'Content-Type': stored.mediaType,
    'Content-Length': String(stored.size),
    Digest: `MD5=${stored.digestMD5}`,
  };
}
