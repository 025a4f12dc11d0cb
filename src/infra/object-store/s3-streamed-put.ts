import type http from 'node:http';
import type https from 'node:https';
import type { Readable } from 'node:stream';
import { signRequest } from './minio-internals';
import { ObjectSizeMismatchError } from './object-store';
import { connectDeadline, errorDocument, keyPath, readHead, timeoutError } from './s3-wire';

/** Where and as whom a streamed PUT goes; the S3 store builds it from its settings. */
export interface StreamedPutTarget {
  protocol: 'http:' | 'https:';
  transport: typeof http | typeof https;
  agent: http.Agent;
  hostname: string;
  port: number;
  /** The Host header, as signed: the port only when it is not the scheme's default. */
  hostHeader: string;
  bucket: string;
  accessKey: string;
  secretKey: string;
  /** Sent (and signed) as `x-amz-security-token` with temporary credentials. */
  sessionToken: string | undefined;
  region: string;
  connectTimeoutMs: number;
  idleTimeoutMs: number;
}

/** An S3 error answer (or a broken connection), for S3Store to map; the body's own errors never are. */
export class StoreSideError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
    readonly httpstatus?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'StoreSideError';
  }
}

/** S3's payload marker for a body not covered by the signature (the signed Content-MD5 covers it). */
const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';

/** `20261123T101112Z`, the x-amz-date format. */
const amzDate = (date: Date) => date.toISOString().replace(/[-:]|\.\d{3}/g, '');

/** Statuses that mean the server is up but failing, as opposed to refusing this request. */
const isServerTrouble = (status: number) => status >= 500 || status === 429 || status === 408;

interface Answer {
  status: number;
  body: string;
  headers: http.IncomingHttpHeaders;
}

/** The server's answer, read whole (error documents are small; success bodies are empty). */
function answerOf(request: http.ClientRequest): Promise<Answer> {
  return new Promise((resolve, reject) => {
    request.once('error', reject);
    request.once('response', (response) => {
      readHead(response).then(
        (body) => resolve({ status: response.statusCode ?? 0, body, headers: response.headers }),
        reject,
      );
    });
  });
}

function storeSide(error: unknown): StoreSideError {
  if (error instanceof StoreSideError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return new StoreSideError(message, typeof code === 'string' ? code : undefined, undefined, { cause: error });
}

/**
 * PUTs `body` as one request while it arrives: no part buffer and no payload hash, so memory
 * stays flat and the only work per byte is sending it. The body is signed through Content-MD5
 * (with `md5`) or protected by TLS; the server refuses a body whose MD5 differs (BadDigest).
 *
 * The idle deadline counts only while the server holds us up (a full socket, or waiting for its
 * answer), never while we wait for the body: a slow client does not look like a dead store.
 * Resolves with the headers of the server's answer. Rejects with the body's own error unchanged,
 * ObjectSizeMismatchError, or StoreSideError.
 */
export async function streamedPut(
  target: StreamedPutTarget,
  key: string,
  body: Readable,
  { contentType, size, md5 }: { contentType: string; size: number; md5?: string },
): Promise<http.IncomingHttpHeaders> {
  const path = `/${target.bucket}/${keyPath(key)}`;
  const date = new Date();
  const headers: Record<string, string> = {
    host: target.hostHeader,
    'content-type': contentType,
    'content-length': String(size),
    'x-amz-date': amzDate(date),
    'x-amz-content-sha256': UNSIGNED_PAYLOAD,
    ...(md5 === undefined ? {} : { 'content-md5': md5 }),
    ...(target.sessionToken === undefined ? {} : { 'x-amz-security-token': target.sessionToken }),
  };
  headers.authorization = signRequest(
    { protocol: target.protocol, method: 'PUT', path, headers },
    target,
    date,
    UNSIGNED_PAYLOAD,
  );
  const request = target.transport.request({
    method: 'PUT',
    hostname: target.hostname,
    port: target.port,
    path,
    headers,
    agent: target.agent,
  });
  connectDeadline(request, target.connectTimeoutMs);
  // Set once the server refuses or the connection breaks, possibly while the body still flows.
  const failed = new AbortController();
  const answer = answerOf(request)
    .then((reply) => {
      if (reply.status !== 200) throw errorOf(reply);
      return reply.headers;
    })
    .catch((error: unknown) => {
      const failure = storeSide(error);
      failed.abort(failure);
      throw failure;
    });
  answer.catch(() => undefined);
  try {
    let sent = 0;
    for await (const chunk of body) {
      failed.signal.throwIfAborted();
      const bytes = chunk as Buffer;
      sent += bytes.length;
      if (sent > size) throw new ObjectSizeMismatchError(key, size, `more than ${size}`);
      if (!request.write(bytes)) await drained(request, failed.signal, target.idleTimeoutMs);
    }
    if (sent !== size) throw new ObjectSizeMismatchError(key, size, String(sent));
    request.end();
    request.setTimeout(target.idleTimeoutMs, () =>
      request.destroy(timeoutError(`no answer within ${target.idleTimeoutMs} ms`)),
    );
    return await answer;
  } catch (error) {
    request.destroy();
    throw error;
  }
}

function errorOf({ status, body }: Answer): StoreSideError {
  const { code, message } = errorDocument(body, status, 'no error document');
  return new StoreSideError(`${message} (HTTP ${status})`, code, isServerTrouble(status) ? status : undefined);
}

/** Waits for the socket to take more; fails when the store does, or after `idleMs` of nothing. */
function drained(request: http.ClientRequest, failed: AbortSignal, idleMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      const error = timeoutError(`the object store took no data for ${idleMs} ms`);
      request.destroy(error);
      finish(() => reject(storeSide(error)));
    }, idleMs);
    const onDrain = () => finish(resolve);
    const onFailure = () => finish(() => reject(failed.reason));
    const finish = (settle: () => void) => {
      clearTimeout(timer);
      request.removeListener('drain', onDrain);
      failed.removeEventListener('abort', onFailure);
      settle();
    };
    if (failed.aborted) return onFailure();
    request.once('drain', onDrain);
    failed.addEventListener('abort', onFailure, { once: true });
  });
}
