import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { BenchEnvironment } from '../setup';
import type { SeededUser } from './seed';

export const MIB = 1024 * 1024;
/** Bodies are this random MiB, again and again, handed out in slices the size of a socket read. */
const PATTERN = randomBytes(MIB);
const SLICE = 64 * 1024;
export const MEDIA_TYPE = 'application/octet-stream';

/** `size` bytes of the pattern, generated as they are read; nothing holds the whole body. */
export function* bodyChunks(size: number): Generator<Buffer> {
  for (let offset = 0; offset < size; offset += SLICE) {
    const start = offset % MIB;
    yield PATTERN.subarray(start, start + Math.min(SLICE, size - offset));
  }
}

const digests = new Map<number, string>();

/** The base64 MD5 of `size` bytes of the pattern (computed once per size, untimed callers). */
export function digestOf(size: number): string {
  let digest = digests.get(size);
  if (!digest) {
    const hash = createHash('md5');
    for (const chunk of bodyChunks(size)) hash.update(chunk);
    digests.set(size, (digest = hash.digest('base64')));
  }
  return digest;
}

/** Sends `size` bytes of the pattern with Content-Length, streamed; resolves with the response. */
function upload(
  url: string,
  agent: http.Agent,
  headers: Record<string, string>,
  size: number,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      { method: 'POST', agent, headers: { ...headers, 'content-length': String(size) } },
      (response) => {
        const parts: Buffer[] = [];
        response.on('data', (part: Buffer) => parts.push(part));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(parts).toString() }));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    pipeline(Readable.from(bodyChunks(size)), request).catch(reject);
  });
}

/** Reads the whole response and throws unless it is a 200 of exactly `size` bytes. */
function download(url: string, agent: http.Agent, headers: Record<string, string>, size: number): Promise<void> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent, headers }, (response) => {
        let bytes = 0;
        response.on('data', (part: Buffer) => (bytes += part.length));
        response.on('end', () =>
          response.statusCode === 200 && bytes === size
            ? resolve()
            : reject(new Error(`GET ${url} answered ${response.statusCode} with ${bytes} bytes`)),
        );
        response.on('error', reject);
      })
      .on('error', reject);
  });
}

export async function drain(stream: Readable, size: number): Promise<void> {
  let bytes = 0;
  for await (const chunk of stream) bytes += (chunk as Buffer).length;
  if (bytes !== size) throw new Error(`read ${bytes} bytes, expected ${size}`);
}

/** Blob uploads and downloads through the service, and the same through the floor's bare HTTP handler. */
export class BlobClient {
  readonly agent: http.Agent;
  private readonly headers: Record<string, string>;
  private bareUploads = 0;

  constructor(
    private readonly env: BenchEnvironment,
    private readonly user: SeededUser,
    maxSockets: number,
  ) {
    this.agent = new http.Agent({ keepAlive: true, maxSockets });
    this.headers = { 'x-tidepool-session-token': user.token };
  }

  /** POST /v1/users/{id}/blobs with the right Digest; returns the new blob's id. */
  async upload(size: number): Promise<string> {
    const { status, body } = await upload(
      `${this.env.app.url}/v1/users/${this.user.userid}/blobs`,
      this.agent,
      { ...this.headers, 'content-type': MEDIA_TYPE, digest: `md5=${digestOf(size)}` },
      size,
    );
    if (status !== 201) throw new Error(`upload answered ${status}: ${body.slice(0, 300)}`);
    return (JSON.parse(body) as { id: string }).id;
  }

  /** The same bytes to the floor server's bare HTTP handler; returns the name it stored them as. */
  async bareUpload(size: number): Promise<string> {
    const name = `b${(this.bareUploads += 1)}`;
    const headers = { 'content-type': MEDIA_TYPE, digest: `md5=${digestOf(size)}` };
    const { status, body } = await upload(`${this.env.floor.url}/floor/blobs/${name}`, this.agent, headers, size);
    if (status !== 201) throw new Error(`bare upload answered ${status}: ${body.slice(0, 300)}`);
    return name;
  }

  bareDownload(name: string, size: number): Promise<void> {
    return download(`${this.env.floor.url}/floor/blobs/${name}`, this.agent, {}, size);
  }

  download(id: string, size: number): Promise<void> {
    return download(`${this.env.app.url}/v1/blobs/${id}/content`, this.agent, this.headers, size);
  }

  /** Untimed housekeeping between phases, so one phase's files do not weigh on the next. */
  async deleteAll(): Promise<void> {
    const response = await fetch(`${this.env.app.url}/v1/users/${this.user.userid}/blobs`, {
      method: 'DELETE',
      headers: this.headers,
    });
    if (response.status !== 204) throw new Error(`DELETE blobs answered ${response.status}`);
  }
}
