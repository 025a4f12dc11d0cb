import type http from 'node:http';

/** Small pieces of talking HTTP to an S3 server, shared by the minio transport and streamed PUTs. */

/**
 * A key as a request path per RFC 3986: every byte but unreserved characters (letters, digits,
 * `-._~`) and the `/` between segments percent-encoded, `!'()*` included (encodeURIComponent
 * leaves those). S3 signs the path as sent and checks it in this form; minio encodes its own
 * requests the same way (minio-internals.test.ts).
 */
export function keyPath(key: string): string {
  return key
    .split('/')
    .map((segment) =>
      encodeURIComponent(segment).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`),
    )
    .join('/');
}

/** An error that reads as a network timeout (ETIMEDOUT), so it is classed as "unreachable". */
export function timeoutError(message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code: 'ETIMEDOUT' });
}

/** The text of the first `<tag>` of an S3 XML document (error documents are flat). */
function xmlText(xml: string, tag: string): string | undefined {
  return new RegExp(`<${tag}>([^<]*)</${tag}>`).exec(xml)?.[1];
}

/** Code and message of an S3 error document, with stand-ins where the body is not one. */
export function errorDocument(body: string, status: number, noMessage: string): { code: string; message: string } {
  return { code: xmlText(body, 'Code') ?? `HTTP${status}`, message: xmlText(body, 'Message') ?? noMessage };
}

/** A response body read to its end (freeing the socket), keeping its first 16 KiB: error documents are small. */
export function readHead(response: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    response.on('data', (chunk: Buffer) => {
      if (kept < 16 * 1024) chunks.push(chunk);
      kept += chunk.length;
    });
    response.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    response.once('error', reject);
  });
}

/** Destroys `request` with ETIMEDOUT unless its socket connects within `ms`. */
export function connectDeadline(request: http.ClientRequest, ms: number): void {
  request.once('socket', (socket) => {
    if (!socket.connecting) return;
    const timer = setTimeout(() => request.destroy(timeoutError(`could not connect within ${ms} ms`)), ms);
    const clear = () => clearTimeout(timer);
    socket.once('connect', clear);
    request.once('close', clear);
  });
}

/**
 * A single PUT's ETag is the hex MD5 of the body, except for objects encrypted with KMS or a
 * customer key, whose ETag is opaque (as AWS documents it). An MD5 ETag other than the announced
 * digest means a server that ignored Content-MD5 and stored something else than the client sent.
 */
export function contradicts(reply: http.IncomingHttpHeaders, md5: string): boolean {
  const encryption = reply['x-amz-server-side-encryption'] ?? 'AES256';
  if (encryption !== 'AES256' || reply['x-amz-server-side-encryption-customer-algorithm']) return false;
  const hex = reply.etag?.replace(/"/g, '').toLowerCase();
  return hex !== undefined && /^[0-9a-f]{32}$/.test(hex) && hex !== Buffer.from(md5, 'base64').toString('hex');
}
