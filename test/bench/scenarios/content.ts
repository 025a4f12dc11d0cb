import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { loadConfig } from '../../../src/config';
import { createObjectStore } from '../../../src/infra/object-store';
import type { ObjectStore } from '../../../src/infra/object-store/object-store';
import { BENCH_SECONDS, load, type Measurement } from '../harness';
import type { BenchEnvironment } from '../setup';
import { signUpUser, type SeededUser } from './seed';

const MIB = 1024 * 1024;
const SMALL = MIB;
const LARGE = 100 * MIB;
/** Bodies are this random MiB, again and again, handed out in slices the size of a socket read. */
const PATTERN = randomBytes(MIB);
const SLICE = 64 * 1024;
const MEDIA_TYPE = 'application/octet-stream';
/** Where the floor writes, beside the service's own keys in the same store. */
const FLOOR_PREFIX = 'bench-floor/';
/** Where the floor server's bare HTTP handler keeps what it receives (test/bench/floor-server.ts). */
const BARE_HTTP_PREFIX = 'bench-http-floor/';
const SMALL_CONCURRENCY = 4;
const LARGE_REPETITIONS = 3;
const DEVICE_LOG_ENTRIES = 1000;

/** `size` bytes of the pattern, generated as they are read; nothing holds the whole body. */
function* bodyChunks(size: number): Generator<Buffer> {
  for (let offset = 0; offset < size; offset += SLICE) {
    const start = offset % MIB;
    yield PATTERN.subarray(start, start + Math.min(SLICE, size - offset));
  }
}

function digestOf(size: number): string {
  const hash = createHash('md5');
  for (const chunk of bodyChunks(size)) hash.update(chunk);
  return hash.digest('base64');
}

interface Run {
  ok: number;
  errors: number;
  seconds: number;
  durations: number[];
  firstError?: unknown;
}

/** Runs `once` from `concurrency` loops, for `seconds` or `times` calls in all; failures are counted. */
async function drive(
  plan: { seconds: number; concurrency: number } | { times: number },
  once: () => Promise<void>,
): Promise<Run> {
  const run: Run = { ok: 0, errors: 0, seconds: 0, durations: [] };
  const deadline = 'seconds' in plan ? performance.now() + plan.seconds * 1000 : Infinity;
  let remaining = 'times' in plan ? plan.times : Infinity;
  const loop = async () => {
    while (performance.now() < deadline && remaining-- > 0) {
      const start = performance.now();
      try {
        await once();
        run.durations.push(performance.now() - start);
        run.ok += 1;
      } catch (error) {
        run.errors += 1;
        run.firstError ??= error;
      }
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: 'concurrency' in plan ? plan.concurrency : 1 }, loop));
  run.seconds = (performance.now() - start) / 1000;
  return run;
}

function percentile(sorted: number[], fraction: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)];
}

function measurement(name: string, run: Run, bytes: number, floor?: string, notes?: string): Measurement {
  if (run.firstError) console.error(`${name}: ${run.errors} errors, the first: ${String(run.firstError)}`);
  const sorted = [...run.durations].sort((a, b) => a - b);
  return {
    name,
    requestsPerSecond: run.ok / run.seconds,
    mibPerSecond: (run.ok * bytes) / MIB / run.seconds,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    errors: run.errors,
    floor,
    notes,
  };
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

async function drain(stream: Readable, size: number): Promise<void> {
  let bytes = 0;
  for await (const chunk of stream) bytes += (chunk as Buffer).length;
  if (bytes !== size) throw new Error(`read ${bytes} bytes, expected ${size}`);
}

class BlobClient {
  readonly agent = new http.Agent({ keepAlive: true, maxSockets: SMALL_CONCURRENCY });
  private readonly headers: Record<string, string>;
  private readonly digests = new Map<number, string>();
  private bareUploads = 0;

  constructor(
    private readonly env: BenchEnvironment,
    private readonly user: SeededUser,
  ) {
    this.headers = { 'x-tidepool-session-token': user.token };
  }

  /** POST /v1/users/{id}/blobs with the right Digest; returns the new blob's id. */
  async upload(size: number): Promise<string> {
    let digest = this.digests.get(size);
    if (!digest) this.digests.set(size, (digest = digestOf(size)));
    const { status, body } = await upload(
      `${this.env.app.url}/v1/users/${this.user.userid}/blobs`,
      this.agent,
      { ...this.headers, 'content-type': MEDIA_TYPE, digest: `md5=${digest}` },
      size,
    );
    if (status !== 201) throw new Error(`upload answered ${status}: ${body.slice(0, 300)}`);
    return (JSON.parse(body) as { id: string }).id;
  }

  /** The same bytes to the floor server's bare HTTP handler; returns the name it stored them as. */
  async bareUpload(size: number): Promise<string> {
    const name = `b${(this.bareUploads += 1)}`;
    const { status, body } = await upload(`${this.env.floor.url}/floor/blobs/${name}`, this.agent, {}, size);
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

/** The service's object key for a blob, found in the store itself. */
async function objectKeyOf(store: ObjectStore, userId: string, blobId: string): Promise<string> {
  for await (const key of store.list(`blobs/${userId}/${blobId}/`)) return key;
  throw new Error(`no stored object for blob ${blobId}`);
}

function residentMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kilobytes = /^VmRSS:\s+(\d+) kB/m.exec(status);
  if (!kilobytes) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(kilobytes[1]) / 1024;
}

/** One 100 MiB upload while the service's VmRSS is sampled every 20 ms. */
async function residentGrowth(client: BlobClient, pid: number): Promise<Measurement> {
  await new Promise((resolve) => setTimeout(resolve, 500));
  const baseline = residentMiB(pid);
  let peak = baseline;
  let samples = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, residentMiB(pid));
    samples += 1;
  }, 20);
  const run = await drive({ times: 1 }, () => client.upload(LARGE).then(() => undefined));
  clearInterval(sampler);
  peak = Math.max(peak, residentMiB(pid));
  const growth = peak - baseline;
  const verdict = growth <= 32 ? 'within' : 'OVER';
  return measurement(
    'service RSS during one 100 MiB upload',
    run,
    LARGE,
    undefined,
    `peak VmRSS +${growth.toFixed(1)} MiB over ${baseline.toFixed(0)} MiB (${samples} samples; ${verdict} target 32)`,
  );
}

async function deviceLogs(env: BenchEnvironment, user: SeededUser): Promise<Measurement> {
  const start = Date.parse('2024-01-02T03:04:05Z');
  const entries = Array.from({ length: DEVICE_LOG_ENTRIES }, (_, index) => ({
    type: index % 2 ? 'receive' : 'send',
    managerIdentifier: 'com.example.pump-manager',
    deviceIdentifier: 'pump-0123456789',
    timestamp: new Date(start + index * 1000).toISOString(),
    message: `${index % 2 ? 'response' : 'command'} ${index}: ${randomBytes(24).toString('hex')}`,
  }));
  const body = JSON.stringify(entries);
  const url = `${env.app.url}/v1/users/${user.userid}/device_logs`;
  const headers = {
    'x-tidepool-session-token': user.token,
    'content-type': 'application/json',
    digest: `md5=${createHash('md5').update(body).digest('base64')}`,
    'x-logs-start-at-time': new Date(start).toISOString(),
    'x-logs-end-at-time': new Date(start + DEVICE_LOG_ENTRIES * 1000).toISOString(),
  };
  const check = await fetch(url, { method: 'POST', headers, body });
  if (check.status !== 201) throw new Error(`device log upload answered ${check.status}: ${await check.text()}`);
  const row = await load(`POST device_logs (${DEVICE_LOG_ENTRIES.toLocaleString('en')} entries)`, {
    url,
    method: 'POST',
    headers,
    body,
    connections: 4,
  });
  const bytes = Buffer.byteLength(body);
  row.mibPerSecond = (row.requestsPerSecond * bytes) / MIB;
  row.notes = `${(bytes / 1024).toFixed(0)} KiB body, 4 connections`;
  return row;
}

/**
 * Issue 5: blob bytes through the service against the same store driven directly from this
 * process (the floor: store.put/get only; no HTTP, no MD5, no database), and device-log uploads.
 */
interface Shape {
  spec: Parameters<typeof drive>[0];
  bytes: number;
  note: string;
}

/**
 * The floor (the store called in-process: no HTTP, MD5 or database), the least an HTTP server
 * can do here (the same bytes through MD5 into the same store, no auth, no database), and the
 * service, each with its ratio to the floor.
 */
async function trio(
  shape: Shape,
  floorName: string,
  floorRun: () => Promise<void>,
  bareHttpRun: () => Promise<void>,
  serviceName: string,
  serviceRun: () => Promise<void>,
): Promise<Measurement[]> {
  const floorNote = `${shape.note}; in-process: no HTTP, MD5, DB`;
  const floor = measurement(
    `floor: ${floorName}`,
    await drive(shape.spec, floorRun),
    shape.bytes,
    undefined,
    floorNote,
  );
  const bareNote = `${shape.note}; node:http ${floorName.startsWith('store.put') ? '+ MD5 → store' : '← store'}, no auth or DB`;
  const bare = measurement(
    `bare HTTP: ${serviceName}`,
    await drive(shape.spec, bareHttpRun),
    shape.bytes,
    floor.name,
    bareNote,
  );
  const service = measurement(serviceName, await drive(shape.spec, serviceRun), shape.bytes, floor.name, shape.note);
  service.notes = `${shape.note}; ${(service.requestsPerSecond / bare.requestsPerSecond).toFixed(2)} of bare HTTP`;
  return [floor, bare, service];
}

export async function contentScenarios(env: BenchEnvironment): Promise<Measurement[]> {
  const user = await signUpUser(env, 'content');
  const client = new BlobClient(env, user);
  // The service's own store: the same driver and location (or bucket) the child was given.
  const store = createObjectStore(loadConfig({ ...process.env, DATA_DIR: env.dataDir }));
  let floorKeys = 0;
  const floorPut = (size: number) => () =>
    store
      .put(`${FLOOR_PREFIX}${floorKeys++}`, Readable.from(bodyChunks(size)), { contentType: MEDIA_TYPE })
      .then(() => undefined);
  const cleanUp = async () => {
    await store.deletePrefix(FLOOR_PREFIX);
    await store.deletePrefix(BARE_HTTP_PREFIX);
    await client.deleteAll();
  };
  const rows: Measurement[] = [];
  try {
    // Warm both paths (JIT, connections, folders) before anything is timed.
    await drive({ times: 5 }, floorPut(SMALL));
    await drive({ times: 5 }, () => client.upload(SMALL).then(() => undefined));
    await cleanUp();
    // First, while the service's heap is still small: the growth a big upload causes on its own.
    const resident = await residentGrowth(client, env.app.process.pid!);
    await cleanUp();

    const small: Shape = {
      spec: { seconds: BENCH_SECONDS, concurrency: SMALL_CONCURRENCY },
      bytes: SMALL,
      note: `${SMALL_CONCURRENCY} concurrent`,
    };
    const large: Shape = { spec: { times: LARGE_REPETITIONS }, bytes: LARGE, note: `${LARGE_REPETITIONS} sequential` };
    const upload = (size: number) => () => client.upload(size).then(() => undefined);
    for (const shape of [small, large]) {
      const size = shape.bytes === SMALL ? '1 MiB' : '100 MiB';
      const bare = () => client.bareUpload(shape.bytes).then(() => undefined);
      const service = `POST /v1/users/{id}/blobs ${size}`;
      rows.push(...(await trio(shape, `store.put ${size}`, floorPut(shape.bytes), bare, service, upload(shape.bytes))));
      await cleanUp();
    }

    // Downloads: all three read the very same bytes from the same store.
    for (const shape of [small, large]) {
      const size = shape.bytes === SMALL ? '1 MiB' : '100 MiB';
      const id = await client.upload(shape.bytes);
      const key = await objectKeyOf(store, user.userid, id);
      const bareName = await client.bareUpload(shape.bytes);
      const floorGet = async () => drain(await store.get(key), shape.bytes);
      const bareGet = () => client.bareDownload(bareName, shape.bytes);
      const service = `GET /v1/blobs/{id}/content ${size}`;
      rows.push(
        ...(await trio(shape, `store.get ${size}`, floorGet, bareGet, service, () => client.download(id, shape.bytes))),
      );
    }
    await cleanUp();

    rows.push(resident, await deviceLogs(env, user));
  } finally {
    client.agent.destroy();
  }
  return rows;
}
