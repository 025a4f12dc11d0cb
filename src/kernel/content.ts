import { createHash, type Hash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { AppError, invalid } from './errors';
import { truncate } from './validation';
import { noteStreamedBytes } from './young-garbage';

/**
 * Blobs and device logs alike: Tidepool's `SizeMaximum`, 100 MiB per body. The default of
 * CONTENT_SIZE_LIMIT_BYTES (src/config.ts), which the content store and the GraphQL multipart
 * reader enforce.
 */
export const CONTENT_SIZE_LIMIT = 100 * 1024 * 1024;

/** The base64 MD5 of no bytes at all. */
export const EMPTY_MD5 = '1B2M2Y8AsgTpgAmY7PhCfg==';

/** A content stream with what the caller says about it, as both transports deliver it. */
export interface IncomingContent {
  stream: NodeJS.ReadableStream;
  mediaType: string;
  /** The length the client announced, when it did (lets oversized bodies fail before reading). */
  declaredSize?: number;
}

/** What was measured while the bytes went by. */
export interface ContentFacts {
  size: number;
  digestMD5: string;
}

/**
 * RFC 9110 media type: type/subtype and parameters whose values are tokens or quoted strings of
 * visible ASCII. Downloads send it back as `Content-Type`, so nothing a header cannot carry (a
 * line break, a control character, a character beyond Latin-1) may get in.
 */
const MEDIA_TYPE =
  /^[\w!#$&^.+-]+\/[\w!#$&^.+-]+([ \t]*;[ \t]*[\w!#$&^.+-]+=("(?:[\t !#-[\]-~]|\\[\t -~])*"|[\w!#$&^.+-]+))*$/;

/** The longest media type a record keeps (its column's width). */
export const MEDIA_TYPE_MAX_LENGTH = 255;

export function assertMediaType(value: string, field = 'mediaType'): string {
  const trimmed = value.trim();
  if (trimmed.length > MEDIA_TYPE_MAX_LENGTH)
    throw invalid(`${field} is longer than ${MEDIA_TYPE_MAX_LENGTH} characters`, field);
  if (!MEDIA_TYPE.test(trimmed))
    throw invalid(`${field} "${truncate(value)}" is not a media type such as image/png`, field);
  return trimmed;
}

/** The base64 of exactly 16 bytes (24 characters), as `digestMD5` and the Digest header carry it. */
export function assertDigestMD5(value: string, field = 'digestMD5'): string {
  const bytes = /^[A-Za-z0-9+/]{22}==$/.test(value) ? Buffer.from(value, 'base64') : undefined;
  if (bytes?.length !== 16) throw invalid(`${field} "${value}" is not the base64 of a 16-byte MD5 digest`, field);
  return value;
}

const MiB = 1024 * 1024;

export const tooLarge = (limit: number) =>
  new AppError(
    'TOO_LARGE',
    `The content is larger than the limit of ${limit} bytes${limit % MiB === 0 ? ` (${limit / MiB} MiB)` : ''}`,
  );

/**
 * How much an upload may hold between its socket and its store, on each side of the meter.
 * Big enough that reading, hashing and writing overlap instead of taking turns in small steps
 * (+20% on the filesystem store); small enough that memory stays flat (1 MiB gained a little
 * more speed but grew the process by 35-43 MiB during a 100 MiB upload).
 */
export const CONTENT_BUFFER_BYTES = 256 * 1024;

/**
 * Passes bytes through while computing their MD5 and size, failing the stream with TOO_LARGE
 * the moment the limit is crossed, so nothing over the limit is ever written in full.
 *
 * With `digestCheckedByStore`, the meter only counts: the object store checks the bytes against
 * that digest itself and stores nothing when they differ, so hashing them here too would cost
 * the upload's largest share of CPU for nothing. `facts()` then reports that digest, which is
 * only true once the store has accepted the bytes.
 */
export class ContentMeter extends Transform {
  private readonly hash: Hash | undefined;
  private bytes = 0;
  private measured: ContentFacts | undefined;
  private readonly limit: number;
  private readonly digestCheckedByStore: string | undefined;

  constructor(options: { limit: number; digestCheckedByStore?: string }) {
    super({ highWaterMark: CONTENT_BUFFER_BYTES });
    this.limit = options.limit;
    this.digestCheckedByStore = options.digestCheckedByStore;
    this.hash = this.digestCheckedByStore === undefined ? createHash('md5') : undefined;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.limit) return callback(tooLarge(this.limit));
    noteStreamedBytes(chunk.length);
    this.hash?.update(chunk);
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    this.measured = { size: this.bytes, digestMD5: this.hash?.digest('base64') ?? this.digestCheckedByStore! };
    callback();
  }

  /** What went through; only once the whole stream has. */
  facts(): ContentFacts {
    if (!this.measured) throw new Error('the content stream has not ended yet');
    return this.measured;
  }
}

/** `computed` is unknown when the object store refused the bytes without telling their digest. */
export function digestMismatch(sent: string, computed?: string): AppError {
  const reason =
    computed === undefined
      ? `digest "${sent}" does not equal calculated digest of the content (checked by the object store)`
      : `digest "${sent}" does not equal calculated digest "${computed}"`;
  return new AppError('DIGEST_MISMATCH', reason, { field: 'digestMD5' });
}

/**
 * Pipes `source` into `target` the way an upload needs: a failure or early end of the source
 * fails the target, but a failing target (too large, invalid) leaves the source alone. An HTTP
 * request must stay intact so its error response can still be sent on that connection.
 */
export function relay<T extends NodeJS.WritableStream & { destroy(error?: Error): unknown }>(
  source: NodeJS.ReadableStream,
  target: T,
): T {
  const incomplete = () => new AppError('INVALID', 'The request body ended before it was complete');
  const onError = (error: Error) => target.destroy(error instanceof AppError ? error : incomplete());
  const onClose = () => {
    if (!(source as { readableEnded?: boolean }).readableEnded) target.destroy(incomplete());
  };
  // The target may fail before anything reads it (a relay's source checks `errored`), so its
  // error event must never go unheard.
  target.on('error', () => undefined);
  const failedAlready = (source as { errored?: Error | null }).errored;
  if (failedAlready) {
    target.destroy(failedAlready instanceof AppError ? failedAlready : incomplete());
    return target;
  }
  source.once('error', onError);
  source.once('close', onClose);
  target.once('close', () => {
    source.unpipe(target);
    source.removeListener('error', onError);
    source.removeListener('close', onClose);
  });
  return source.pipe(target);
}
