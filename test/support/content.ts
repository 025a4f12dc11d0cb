import { createHash, randomBytes } from 'node:crypto';
import net from 'node:net';
import { Readable } from 'node:stream';
import { CONTENT_SIZE_LIMIT } from '../../src/kernel/content';
import type { TestApp } from './app';
import { call, type Reply } from './http';

export const MiB = 1024 * 1024;
/** The service's own content size limit, 100 MiB: one test per kind of content crosses it. */
export const DEFAULT_LIMIT = CONTENT_SIZE_LIMIT;
/** The limit the other boundary tests set, so that crossing it moves 2 MiB instead of 200. */
export const SMALL_LIMIT = MiB;
export const SMALL_LIMIT_ENV = { CONTENT_SIZE_LIMIT_BYTES: String(SMALL_LIMIT) };

export const md5 = (bytes: Buffer | string) => createHash('md5').update(bytes).digest('base64');

/** `size` pseudo-random bytes produced 1 MiB at a time (each block stamped with its index), never all in memory. */
export function generatedBody(size: number, seed = 7): { stream: () => ReadableStream<Uint8Array>; digest: string } {
  const base = Buffer.concat(
    Array.from({ length: MiB / 64 }, (_, i) => createHash('sha512').update(`${seed}:${i}`).digest()),
  );
  function* blocks() {
    for (let offset = 0, index = 0; offset < size; offset += MiB, index++) {
      const block = Buffer.from(base);
      block.writeUInt32BE(index, 0);
      yield block.subarray(0, Math.min(MiB, size - offset));
    }
  }
  const hash = createHash('md5');
  for (const block of blocks()) hash.update(block);
  const stream = () => Readable.toWeb(Readable.from(blocks())) as ReadableStream<Uint8Array>;
  return { stream, digest: hash.digest('base64') };
}

export async function uploadBlob(
  app: TestApp,
  userId: string,
  token: string,
  body: Buffer | string = randomBytes(1024),
  headers: Record<string, string> = {},
): Promise<Reply> {
  return call(app.url, `/v1/users/${userId}/blobs`, {
    method: 'POST',
    token,
    headers: { 'content-type': 'application/octet-stream', digest: `md5=${md5(body)}`, ...headers },
    body,
  });
}

export interface LogEntry {
  type: string;
  managerIdentifier: string;
  deviceIdentifier: string;
  timestamp: string;
  message: string;
}

export function logEntries(count: number, start = Date.parse('2024-03-01T10:00:00Z')): LogEntry[] {
  return Array.from({ length: count }, (_, index) => ({
    type: ['send', 'receive', 'connection'][index % 3],
    managerIdentifier: 'Devicey McDeviceface',
    deviceIdentifier: 'MMT-1711:12345678',
    timestamp: new Date(start + index * 1000).toISOString(),
    message: `message ${index}`,
  }));
}

export async function uploadLog(
  app: TestApp,
  userId: string,
  token: string,
  window: { start: string; end: string },
  entries: unknown = logEntries(3),
  headers: Record<string, string> = {},
): Promise<Reply> {
  const body = typeof entries === 'string' ? entries : JSON.stringify(entries);
  return call(app.url, `/v1/users/${userId}/device_logs`, {
    method: 'POST',
    token,
    headers: {
      'content-type': 'application/json',
      digest: `md5=${md5(body)}`,
      'x-logs-start-at-time': window.start,
      'x-logs-end-at-time': window.end,
      ...headers,
    },
    body,
  });
}

/** How long a paused request with nothing to do during its pause waits for an answer before it gives up. */
const ANSWER_DEADLINE_MS = 5_000;

/**
 * A request written byte by byte on a socket: repeated headers (which fetch merges), a declared
 * length that differs from what is sent, a body cut off midway. With `pauseAfter`, the first
 * bytes go out, `duringPause` runs (waiting for whatever the test needs the server to be doing),
 * then the rest follows, or with `abort` the socket is closed. An `abort` without `duringPause`
 * first waits for the server to answer without the rest (ANSWER_DEADLINE_MS at most).
 */
export function rawRequest(
  app: TestApp,
  path: string,
  headers: [string, string][],
  body: Buffer,
  options: { pauseAfter?: number; duringPause?: () => Promise<void>; abort?: boolean; contentLength?: number } = {},
): Promise<{ status: number; text: string } | 'aborted'> {
  const url = new URL(path, app.url);
  const head = [
    `POST ${url.pathname}${url.search} HTTP/1.1`,
    `Host: ${url.host}`,
    'Connection: close',
    `Content-Length: ${options.contentLength ?? body.length}`,
    ...headers.map(([name, value]) => `${name}: ${value}`),
  ].join('\r\n');
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    let aborted = false;
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // A server that answers early (413, 503) closes while the rest is still being written.
    socket.on('error', (error) => (aborted || chunks.length ? undefined : reject(error)));
    socket.on('close', () => {
      if (aborted) return resolve('aborted');
      const response = Buffer.concat(chunks).toString();
      const [statusLine] = response.split('\r\n');
      const text = response.slice(response.indexOf('\r\n\r\n') + 4);
      resolve({ status: Number(statusLine.split(' ')[1]), text: decodeChunked(response, text) });
    });
    const first = options.pauseAfter ?? body.length;
    /** Resolves once the server has answered (or closed), or at ANSWER_DEADLINE_MS. */
    const answered = () =>
      new Promise<void>((settle) => {
        if (chunks.length || socket.closed) return settle();
        const stop = () => {
          clearTimeout(timer);
          settle();
        };
        const timer = setTimeout(stop, ANSWER_DEADLINE_MS);
        socket.once('data', stop);
        socket.once('close', stop);
      });
    const pause = async () => {
      if (options.duringPause) await options.duringPause();
      else if (options.abort) await answered();
      if (!options.abort) return void socket.write(body.subarray(first));
      if (chunks.length) return; // already answered
      aborted = true;
      socket.destroy();
    };
    socket.write(`${head}\r\n\r\n`);
    socket.write(body.subarray(0, first), () => {
      if (options.pauseAfter === undefined) return;
      pause().catch((error) => {
        socket.destroy();
        reject(error);
      });
    });
  });
}

/** The body `text` of a raw HTTP `response`, decoded when it came in chunks. */
export function decodeChunked(response: string, text: string): string {
  if (!/transfer-encoding: chunked/i.test(response)) return text;
  let decoded = '';
  for (let rest = text; ;) {
    const lineEnd = rest.indexOf('\r\n');
    const size = parseInt(rest.slice(0, lineEnd), 16);
    if (!size) return decoded;
    decoded += rest.slice(lineEnd + 2, lineEnd + 2 + size);
    rest = rest.slice(lineEnd + 2 + size + 2);
  }
}
