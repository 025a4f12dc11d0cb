import { createHash } from 'node:crypto';
import type http from 'node:http';
import { Readable } from 'node:stream';
import type { Client } from 'minio';
import type { S3Settings } from '../../config';
import { checkObjectKey } from './filesystem-store';
import { abortUpload, deleteObjects, finishUpload, listPage, sendPart, startUpload } from './minio-internals';
import {
  ObjectDigestMismatchError,
  ObjectNotFoundError,
  ObjectSizeMismatchError,
  ObjectStoreUnavailableError,
  type ObjectStore,
  type PutOptions,
  type StoredObject,
} from './object-store';
import { connect } from './s3-connection';
import { errorCode, isMissing, MISSING_CODES, storeFailure } from './s3-failures';
import { withRetries, type RetryKind, type RetryPolicy } from './s3-retry';
import { StoreSideError, streamedPut, type StreamedPutTarget } from './s3-streamed-put';
import { contradicts, timeoutError } from './s3-wire';
import { DEFAULTS, MAX_RETRY_DELAY_MS, SINGLE_PUT_LIMIT, type S3StoreOptions } from './s3-options';

/**
 * Objects in one bucket of an S3-compatible server (AWS S3, MinIO, Ceph, Swift s3api…).
 *
 * The bucket is created lazily: the first operation (ping included) checks that it exists and
 * creates it when it does not; success is remembered for the life of the store, a failure is
 * retried by the next operation. Credentials without CreateBucket permission work as long as the
 * bucket already exists. `ensureBucket()` can be called at start-up to fail early.
 *
 * `put` streams: the body is cut into `partSize` (8 MiB) parts, one in memory at a time, so the
 * process grows by ~2 parts whatever the object size (objects up to 10 000 parts, 80 GiB). A body
 * of at most one part goes in a single PUT. Failures abort the multipart upload; a process that
 * dies mid-upload leaves an incomplete upload behind, which the bucket's lifecycle rule
 * (AbortIncompleteMultipartUpload) should clear.
 *
 * A request that can be sent again (GET, HEAD, DELETE, a listing, a part or a small body held in
 * memory) is retried after SlowDown, a 503 or a cut connection, up to `maxRetries` times with a
 * random, doubling backoff. A body streamed in one request is never sent twice (it cannot be read
 * twice): its failure goes to the caller, whom the transports answer 503 with Retry-After.
 *
 * Any failure to talk to the server (refused, reset, DNS, timeouts, 5xx, refused credentials)
 * rejects with ObjectStoreUnavailableError naming the endpoint; a missing key with
 * ObjectNotFoundError (get) or null (stat).
 */
export class S3Store implements ObjectStore {
  readonly kind = 's3' as const;
  readonly endpoint: string;
  readonly bucket: string;
  private readonly client: Client;
  private readonly target: StreamedPutTarget;
  private readonly region: string;
  private readonly idleTimeoutMs: number;
  private readonly partSize: number;
  private readonly pageSize: number;
  private readonly retries: RetryPolicy;
  private bucketReady: Promise<void> | undefined;
  private bucketEnsured = false;

  constructor(settings: S3Settings, options: S3StoreOptions = {}) {
    this.endpoint = settings.endpoint;
    this.bucket = settings.bucket;
    this.region = settings.region;
    this.partSize = options.partSize ?? DEFAULTS.partSize;
    this.pageSize = Math.min(options.pageSize ?? DEFAULTS.pageSize, 1000);
    if (this.partSize < 5 * 1024 * 1024) throw new Error('S3 multipart parts must be at least 5 MiB');
    // minio's own rule; checked here so a bad S3_BUCKET fails at start-up, not as "unreachable"
    if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(this.bucket) || /\.\.|\d+\.\d+\.\d+\.\d+/.test(this.bucket)) {
      throw new Error(
        `S3 bucket name ${JSON.stringify(this.bucket)} is invalid: 3-63 of a-z, 0-9, '.', '-', starting and ending with a letter or digit`,
      );
    }
    const settled = { ...DEFAULTS, ...options };
    this.idleTimeoutMs = settled.idleTimeoutMs;
    this.retries = {
      maxRetries: settled.maxRetries,
      baseDelayMs: settled.retryBaseDelayMs,
      maxDelayMs: MAX_RETRY_DELAY_MS,
      wait: options.retryWait,
    };
    ({ client: this.client, target: this.target } = connect(settings, settled));
  }

  /** Creates the bucket if it does not exist yet; once per store (again after a failure). */
  ensureBucket(): Promise<void> {
    this.bucketReady ??= this.createBucketIfMissing().then(
      () => {
        this.bucketEnsured = true;
      },
      (error: unknown) => {
        this.bucketReady = undefined;
        throw error;
      },
    );
    return this.bucketReady;
  }

  private async createBucketIfMissing(): Promise<void> {
    if (await this.call(`check bucket ${this.bucket}`, () => this.client.bucketExists(this.bucket))) return;
    try {
      await this.attempt('replayable', () => this.client.makeBucket(this.bucket, this.region));
    } catch (error) {
      // created by another process in between
      if (errorCode(error) === 'BucketAlreadyOwnedByYou') return;
      throw this.failure(`create bucket ${this.bucket}`, error);
    }
  }

  async put(key: string, body: Readable, { contentType, size, md5 }: PutOptions): Promise<StoredObject> {
    checkObjectKey(key);
    await this.ensureBucket();
    if (this.streamsInOneRequest(size, md5)) {
      let reply: http.IncomingHttpHeaders;
      try {
        reply = await streamedPut(this.target, key, body, { contentType, size, md5 });
      } catch (error) {
        if (!(error instanceof StoreSideError)) throw error;
        throw error.code === 'BadDigest' ? new ObjectDigestMismatchError(key) : this.failure(`put ${key}`, error);
      }
      if (md5 !== undefined && contradicts(reply, md5)) {
        await this.delete(key);
        throw new ObjectDigestMismatchError(key);
      }
      return { size, contentType };
    }
    return this.putInParts(key, body, contentType, size);
  }

  checksDigest({ size, md5 }: Pick<PutOptions, 'size' | 'md5'>): boolean {
    return md5 !== undefined && this.streamsInOneRequest(size, md5);
  }

  /**
   * One streamed request when the size is known and the bytes are protected in transit: by the
   * signed Content-MD5 the server checks, or by TLS. Otherwise signed parts, one at a time.
   */
  private streamsInOneRequest(size: number | undefined, md5: string | undefined): size is number {
    return size !== undefined && size <= SINGLE_PUT_LIMIT && (md5 !== undefined || this.target.protocol === 'https:');
  }

  /** The body in `partSize` parts, each signed (payload SHA-256) and sent before the next is read. */
  private async putInParts(
    key: string,
    body: Readable,
    contentType: string,
    declaredSize: number | undefined,
  ): Promise<StoredObject> {
    const parts: { part: number; etag: string }[] = [];
    let uploadId: string | undefined;
    // Up to one part's worth of chunks as they came; then, once the object is known to need
    // several parts, one part-sized buffer filled, sent and reused for every part.
    let head: Buffer[] = [];
    let part: Buffer | undefined;
    let filled = 0;
    let size = 0;
    try {
      // Iterating pulls one chunk at a time: while a part is being sent the body is not read, so
      // memory stays bounded (backpressure). A body error or destroy() throws here, unchanged.
      for await (const chunk of body) {
        let bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
        size += bytes.length;
        if (!part) {
          if (filled + bytes.length <= this.partSize) {
            if (bytes.length) head.push(bytes);
            filled += bytes.length;
            continue;
          }
          // More than one part: a multipart upload.
          part = Buffer.allocUnsafe(this.partSize);
          let offset = 0;
          for (const earlier of head) offset += earlier.copy(part, offset);
          head = [];
          uploadId = await this.call(
            `start upload of ${key}`,
            () => startUpload(this.client, this.bucket, key, contentType),
            'refused',
          );
        }
        while (bytes.length) {
          // a full part is sent only once more bytes come, so the last part is never empty
          if (filled === this.partSize) {
            parts.push(await this.uploadPart(key, uploadId!, parts.length + 1, part));
            filled = 0;
          }
          const taken = bytes.copy(part, filled, 0, Math.min(bytes.length, this.partSize - filled));
          filled += taken;
          bytes = bytes.subarray(taken);
        }
      }
      if (declaredSize !== undefined && size !== declaredSize) {
        throw new ObjectSizeMismatchError(key, declaredSize, String(size));
      }
      if (!part) {
        const whole = Buffer.concat(head, filled);
        head = [];
        await this.call(`put ${key}`, () =>
          this.client.putObject(this.bucket, key, whole, whole.length, { 'Content-Type': contentType }),
        );
      } else {
        parts.push(await this.uploadPart(key, uploadId!, parts.length + 1, part.subarray(0, filled)));
        await this.call(
          `complete upload of ${key}`,
          () => finishUpload(this.client, this.bucket, key, uploadId!, parts),
          'refused',
        );
      }
      return { size, contentType };
    } catch (error) {
      if (uploadId !== undefined) await this.abortUpload(key, uploadId);
      throw error;
    }
  }

  /** Resolves once the server has answered, i.e. has all of `bytes`: the buffer can be reused. */
  private async uploadPart(key: string, uploadId: string, partNumber: number, bytes: Buffer) {
    const md5 = createHash('md5').update(bytes).digest('base64');
    const part = { bucket: this.bucket, key, uploadId, partNumber, md5 };
    const etag = await this.call(`upload part ${partNumber} of ${key}`, () => sendPart(this.client, part, bytes));
    if (!etag) throw new ObjectStoreUnavailableError(`${this.where} gave no ETag for part ${partNumber} of ${key}`);
    return { part: partNumber, etag };
  }

  /**
   * Best effort: when the server is down the upload stays, for the bucket's lifecycle rule.
   * (No fallback to minio's removeIncompleteUpload: it finds uploads by a listing that Swift's
   * s3api answers wrongly, and it cannot succeed where the abort by upload id failed.)
   */
  private async abortUpload(key: string, uploadId: string): Promise<void> {
    try {
      await this.attempt('replayable', () => abortUpload(this.client, this.bucket, key, uploadId));
    } catch {
      // unreachable or already gone: nothing more to do here
    }
  }

  async get(key: string): Promise<Readable> {
    checkObjectKey(key);
    await this.ensureBucket();
    let response: Readable;
    try {
      response = await this.attempt('replayable', () => this.client.getObject(this.bucket, key));
    } catch (error) {
      if (isMissing(error)) throw new ObjectNotFoundError(key);
      throw this.failure(`get ${key}`, error);
    }
    return this.relay(key, response);
  }

  /**
   * The object's bytes, pulled from the response only as fast as the reader asks. The idle
   * deadline counts only while the reader waits for the server: a reader that stalls (a slow
   * download behind backpressure) does not get the transfer cut, a server that stalls does. A
   * connection lost mid-body errors the stream with ObjectStoreUnavailableError; destroying the
   * stream closes the connection.
   */
  private relay(key: string, response: Readable): Readable {
    (response as http.IncomingMessage).setTimeout?.(0); // replaced by the deadline in read()
    const chunks = response[Symbol.asyncIterator]();
    const body = new Readable({
      read: () => {
        const deadline = setTimeout(
          () => response.destroy(timeoutError(`no data within ${this.idleTimeoutMs} ms`)),
          this.idleTimeoutMs,
        );
        chunks.next().then(
          ({ value, done }) => {
            clearTimeout(deadline);
            body.push(done ? null : (value as Buffer));
          },
          (error: unknown) => {
            clearTimeout(deadline);
            body.destroy(this.failure(`read ${key}`, error));
          },
        );
      },
      destroy: (error, callback) => {
        response.destroy();
        callback(error);
      },
    });
    return body;
  }

  async stat(key: string): Promise<StoredObject | null> {
    checkObjectKey(key);
    await this.ensureBucket();
    try {
      const stat = await this.attempt('replayable', () => this.client.statObject(this.bucket, key));
      const type = Object.entries(stat.metaData).find(([name]) => name.toLowerCase() === 'content-type')?.[1];
      return { size: stat.size, contentType: typeof type === 'string' ? type : undefined };
    } catch (error) {
      if (isMissing(error)) return null;
      throw this.failure(`stat ${key}`, error);
    }
  }

  async delete(key: string): Promise<void> {
    checkObjectKey(key);
    await this.ensureBucket();
    try {
      await this.attempt('replayable', () => this.client.removeObject(this.bucket, key));
    } catch (error) {
      if (isMissing(error)) return;
      throw this.failure(`delete ${key}`, error);
    }
  }

  /** One multi-object DELETE per page of (up to 1000) keys. */
  async deleteMany(keys: readonly string[]): Promise<void> {
    for (const key of keys) checkObjectKey(key);
    if (!keys.length) return;
    await this.ensureBucket();
    for (let start = 0; start < keys.length; start += this.pageSize) {
      await this.deletePage(keys.slice(start, start + this.pageSize), `${keys.length} objects`);
    }
  }

  /** Lists and removes page by page. */
  async deletePrefix(prefix: string): Promise<void> {
    await this.ensureBucket();
    for await (const keys of this.pages(prefix)) await this.deletePage(keys, `objects under ${JSON.stringify(prefix)}`);
  }

  private async deletePage(keys: string[], what: string): Promise<void> {
    const failures = await this.call(`delete ${what}`, () => deleteObjects(this.client, this.bucket, keys));
    const failed = failures.filter((failure) => !MISSING_CODES.has(failure.Code!));
    if (failed.length) {
      const sample = failed
        .slice(0, 3)
        .map((error) => `${error.Key}: ${error.Code} ${error.Message ?? ''}`.trim())
        .join('; ');
      throw new ObjectStoreUnavailableError(`${this.where} did not delete ${failed.length} of ${what}: ${sample}`);
    }
  }

  /** Keys under the prefix (any depth), in the server's (byte) order. */
  async *list(prefix: string): AsyncIterable<string> {
    await this.ensureBucket();
    for await (const keys of this.pages(prefix)) yield* keys;
  }

  private async *pages(prefix: string): AsyncIterable<string[]> {
    let marker = '';
    for (;;) {
      const { keys, isTruncated } = await this.call(`list ${JSON.stringify(prefix)}`, () =>
        listPage(this.client, this.bucket, prefix, marker, this.pageSize),
      );
      if (keys.length) yield keys;
      if (!isTruncated || !keys.length) return;
      marker = keys[keys.length - 1];
    }
  }

  /** Creates the bucket on first use; afterwards a HEAD on the bucket, every time. */
  async ping(): Promise<void> {
    if (!this.bucketEnsured) return this.ensureBucket();
    const exists = await this.call(`check bucket ${this.bucket}`, () => this.client.bucketExists(this.bucket));
    if (!exists) throw new ObjectStoreUnavailableError(`${this.where} has no bucket ${this.bucket}`);
  }

  /** The bucket's lifecycle rule ends unfinished multipart uploads (docs/blobs-and-device-logs.md, object stores). */
  async removeUnfinishedWrites(): Promise<number> {
    return 0;
  }

  /** Closes idle keep-alive connections (they never keep the process alive anyway). */
  close(): void {
    this.target.agent.destroy();
  }

  private get where(): string {
    return `object store at ${this.endpoint}`;
  }

  private failure(what: string, error: unknown): Error {
    return storeFailure(this.where, what, error);
  }

  /** `operation`, retried as `kind` allows (see RetryKind); the last failure as it came. */
  private attempt<T>(kind: RetryKind, operation: () => Promise<T>): Promise<T> {
    return withRetries(this.retries, kind, operation);
  }

  private async call<T>(what: string, operation: () => Promise<T>, kind: RetryKind = 'replayable'): Promise<T> {
    try {
      return await this.attempt(kind, operation);
    } catch (error) {
      throw this.failure(what, error);
    }
  }
}
