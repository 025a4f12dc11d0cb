import type http from 'node:http';
import type https from 'node:https';
import { Readable } from 'node:stream';
import type { Client } from 'minio';
import { signV4 } from 'minio/dist/main/signing.js';
import { connectDeadline, errorDocument, readHead, timeoutError } from './s3-wire';

/*
 * Everything the S3 driver takes from minio below its documented API, in one module: the
 * low-level multipart and listing calls, the SigV4 signer, the transport hook and the statuses
 * minio treats as retryable. minio-internals.test.ts checks each of them (and that minio encodes
 * keys in request paths as keyPath does), so an upgrade of `minio` that changes one fails there,
 * not in production.
 */

/** What the signer reads of a request; `path` as sent, query included. */
export interface SignedRequest {
  protocol: string;
  method: string;
  path: string;
  headers: Record<string, string>;
}

/** The Authorization header for a request: AWS SigV4 over method, path, every header but a few, and the payload hash. */
export function signRequest(
  request: SignedRequest,
  credentials: { accessKey: string; secretKey: string; region: string },
  date: Date,
  payloadHash: string,
): string {
  return signV4(request, credentials.accessKey, credentials.secretKey, credentials.region, date, payloadHash);
}

/**
 * Statuses minio 8 "retries" (its internal `retryHttpCodes`), and with retries disabled throws
 * away unread, leaking the socket.
 */
export const MINIO_RETRIED_STATUSES: ReadonlySet<number> = new Set([408, 429, 499, 500, 502, 503, 504, 520]);

const escapeXml = (text: string) => text.replace(/[<>&]/g, (c) => (c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&amp;'));

/**
 * minio's `transport` option: http(s).request with a connect deadline and an inactivity deadline;
 * minio itself has neither (a dead server would otherwise hang a request for the kernel's TCP
 * timeout, minutes).
 *
 * It also hands minio a 5xx/429/408 answer as a status-599 S3 error document (original code and
 * message kept, `<HttpStatus>` added, which minio's error parser turns into `httpstatus`): minio
 * would otherwise report it as "Retryable HTTP status" without the server's reason and leave the
 * response unread, its socket stuck.
 */
export function timedTransport(transport: typeof http | typeof https, connectMs: number, idleMs: number) {
  const request = (options: http.RequestOptions, callback?: (res: http.IncomingMessage) => void) => {
    const req = transport.request({ ...options, timeout: idleMs }, (res) => {
      if (!MINIO_RETRIED_STATUSES.has(res.statusCode ?? 0)) return callback?.(res);
      void readHead(res).then(
        (body) => {
          const status = res.statusCode!;
          const { code, message } = errorDocument(body, status, res.statusMessage || 'server error');
          const xml = `<Error><Code>${escapeXml(code)}</Code><Message>${escapeXml(message)}</Message><HttpStatus>${status}</HttpStatus></Error>`;
          const replacement = Object.assign(Readable.from([Buffer.from(xml)]), {
            statusCode: 599,
            statusMessage: res.statusMessage,
            headers: res.headers,
          });
          callback?.(replacement as unknown as http.IncomingMessage);
        },
        (error: Error) => req.destroy(error),
      );
    });
    req.on('timeout', () => req.destroy(timeoutError(`no answer within ${idleMs} ms`)));
    connectDeadline(req, connectMs);
    return req;
  };
  return { request } as unknown as Pick<typeof http, 'request'>;
}

/** Starts a multipart upload; resolves with its upload id. */
export function startUpload(client: Client, bucket: string, key: string, contentType: string): Promise<string> {
  return client.initiateNewMultipartUpload(bucket, key, { 'Content-Type': contentType });
}

export interface PartOf {
  bucket: string;
  key: string;
  uploadId: string;
  partNumber: number;
  /** Base64 MD5 of the part, checked by the server. */
  md5: string;
}

/** Sends one part (a buffer: minio signs its SHA-256); resolves with its ETag, empty if the server gave none. */
export async function sendPart(client: Client, part: PartOf, bytes: Buffer): Promise<string> {
  const { etag } = await client.uploadPart(
    {
      bucketName: part.bucket,
      objectName: part.key,
      uploadID: part.uploadId,
      partNumber: part.partNumber,
      headers: { 'Content-MD5': part.md5 },
    },
    bytes,
  );
  return etag ?? '';
}

export function finishUpload(
  client: Client,
  bucket: string,
  key: string,
  uploadId: string,
  parts: { part: number; etag: string }[],
): Promise<unknown> {
  return client.completeMultipartUpload(bucket, key, uploadId, parts);
}

export function abortUpload(client: Client, bucket: string, key: string, uploadId: string): Promise<void> {
  return client.abortMultipartUpload(bucket, key, uploadId);
}

/**
 * One page of a (v1) listing of the keys under `prefix` after `marker`, any depth (no
 * delimiter). Without a delimiter the next page starts after the last key; minio's NextMarker is
 * not used, as minio leaves it url-encoded (encoding-type=url) while it decodes the keys.
 */
export async function listPage(
  client: Client,
  bucket: string,
  prefix: string,
  marker: string,
  maxKeys: number,
): Promise<{ keys: string[]; isTruncated: boolean }> {
  const page = await client.listObjectsQuery(bucket, prefix, marker, { Delimiter: '', MaxKeys: maxKeys });
  const keys = page.objects.flatMap((object) => (object.name ? [object.name] : []));
  return { keys, isTruncated: !!page.isTruncated };
}

export interface DeleteFailure {
  Key?: string;
  Code?: string;
  Message?: string;
}

/**
 * The failures of a multi-object delete: minio returns the answer's `<Error>` elements, typed as
 * wrapped in `{ Error }` but bare in fact.
 */
export async function deleteObjects(client: Client, bucket: string, keys: string[]): Promise<DeleteFailure[]> {
  const results = (await client.removeObjects(bucket, keys)) as unknown[];
  return results
    .map((result) => ((result as { Error?: DeleteFailure } | null)?.Error ?? result) as DeleteFailure | null)
    .filter((failure): failure is DeleteFailure => !!failure?.Code);
}
