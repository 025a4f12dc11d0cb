import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { loadConfig } from '../../../src/config';
import { createObjectStore } from '../../../src/infra/object-store';
import type { ObjectStore } from '../../../src/infra/object-store/object-store';
import { drive, driveInTurns, measurement, type Plan } from '../drive';
import { BENCH_SECONDS, load, type Measurement } from '../harness';
import type { BenchEnvironment } from '../setup';
import { BlobClient, bodyChunks, digestOf, drain, MEDIA_TYPE, MIB } from './content-client';
import { signUpUser, type SeededUser } from './seed';

const SMALL = MIB;
const LARGE = 100 * MIB;
/** Where the floor writes, beside the service's own keys in the same store. */
const FLOOR_PREFIX = 'bench-floor/';
/** Where the floor server's bare HTTP handler keeps what it receives (test/bench/floor-server.ts). */
const BARE_HTTP_PREFIX = 'bench-http-floor/';
const SMALL_CONCURRENCY = 4;
const LARGE_REPETITIONS = 4;
/** Turns the contenders of each shape take (driveInTurns). */
const ROUNDS = 4;
const DEVICE_LOG_ENTRIES = 1000;
const RSS_TARGET_MIB = 32;

interface Shape {
  plan: Plan;
  rounds: number;
  bytes: number;
  size: string;
  note: string;
}

const SHAPES: Shape[] = [
  {
    plan: { seconds: BENCH_SECONDS, concurrency: SMALL_CONCURRENCY },
    rounds: ROUNDS,
    bytes: SMALL,
    size: '1 MiB',
    note: `4 concurrent, ${ROUNDS} turns`,
  },
  {
    plan: { times: LARGE_REPETITIONS },
    rounds: ROUNDS,
    bytes: LARGE,
    size: '100 MiB',
    note: `${LARGE_REPETITIONS} sequential, in turns`,
  },
];

/** How the floor reaches each store: the same driver, called from the bench process. */
const FLOOR_PATH = {
  filesystem: 'in-process: no HTTP, MD5 or DB',
  s3: 'bench → S3 server directly, same driver',
};

function residentMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kilobytes = /^VmRSS:\s+(\d+) kB/m.exec(status);
  if (!kilobytes) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(kilobytes[1]) / 1024;
}

/** One 100 MiB upload while the service's VmRSS is sampled every 20 ms. */
async function residentGrowth(label: string, client: BlobClient, pid: number): Promise<Measurement> {
  await new Promise((resolve) => setTimeout(resolve, 500));
  const baseline = residentMiB(pid);
  let peak = baseline;
  let samples = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, residentMiB(pid));
    samples += 1;
  }, 20);
  const run = await drive({ times: 1 }, () => client.upload(LARGE));
  clearInterval(sampler);
  peak = Math.max(peak, residentMiB(pid));
  const growth = peak - baseline;
  const verdict = growth <= RSS_TARGET_MIB ? 'within' : 'OVER';
  return measurement(
    `${label} service RSS during one 100 MiB upload`,
    run,
    LARGE,
    undefined,
    `peak VmRSS +${growth.toFixed(1)} MiB over ${baseline.toFixed(0)} MiB (${samples} samples; ${verdict} target ${RSS_TARGET_MIB})`,
  );
}

async function deviceLogs(label: string, env: BenchEnvironment, user: SeededUser): Promise<Measurement> {
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
  const row = await load(`${label} POST device_logs (${DEVICE_LOG_ENTRIES.toLocaleString('en')} entries)`, {
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
 * The floor, the least an HTTP server can do (bare node:http), and the service, each as a row,
 * measured in turns so that the machine's drift (this disk's speed varies by half) is shared.
 */
async function trio(
  shape: Shape,
  floor: { name: string; note: string; run: () => Promise<unknown> },
  bare: { note: string; run: () => Promise<unknown> },
  service: { name: string; run: () => Promise<unknown> },
): Promise<Measurement[]> {
  const [floorRun, bareRun, serviceRun] = await driveInTurns(shape.plan, shape.rounds, [
    floor.run,
    bare.run,
    service.run,
  ]);
  const floorRow = measurement(floor.name, floorRun, shape.bytes, undefined, floor.note);
  const bareRow = measurement(
    `bare HTTP: ${service.name}`,
    bareRun,
    shape.bytes,
    floorRow.name,
    `${shape.note}; ${bare.note}`,
  );
  const serviceRow = measurement(service.name, serviceRun, shape.bytes, floorRow.name);
  serviceRow.notes = `${shape.note}; ${(serviceRow.requestsPerSecond / bareRow.requestsPerSecond).toFixed(2)} of bare HTTP`;
  return [floorRow, bareRow, serviceRow];
}

/** MD5 alone over the same bytes: the most any upload that verifies its digest can reach here. */
async function md5Ceiling(label: string, floorName: string): Promise<Measurement> {
  const run = await drive({ times: LARGE_REPETITIONS }, async () => {
    const hash = createHash('md5');
    for (const chunk of bodyChunks(LARGE)) hash.update(chunk);
    hash.digest();
  });
  return measurement(`${label} ceiling: MD5 of 100 MiB`, run, LARGE, floorName, 'in-process; no upload can beat it');
}

/**
 * Issue 5: blob bytes through the service against writing and reading the same bytes directly
 * to and from the same store in the same run, plus memory growth and device-log uploads.
 */
export async function contentScenarios(env: BenchEnvironment): Promise<Measurement[]> {
  const user = await signUpUser(env, 'content');
  const client = new BlobClient(env, user, SMALL_CONCURRENCY);
  // The service's own store: the same driver and location (or bucket) the child was given.
  const store = createObjectStore(loadConfig({ ...process.env, ...env.storeEnv, DATA_DIR: env.dataDir }));
  const label = `[${store.kind === 's3' ? 's3' : 'fs'}]`;
  const floorPath = FLOOR_PATH[store.kind];
  let floorKeys = 0;
  const floorPut = (size: number) => () =>
    store.put(`${FLOOR_PREFIX}${floorKeys++}`, Readable.from(bodyChunks(size)), {
      contentType: MEDIA_TYPE,
      size,
      md5: digestOf(size),
    });
  const cleanUp = async () => {
    await store.deletePrefix(FLOOR_PREFIX);
    await store.deletePrefix(BARE_HTTP_PREFIX);
    await client.deleteAll();
  };
  const rows: Measurement[] = [];
  try {
    // Warm both paths (JIT, connections, folders) before anything is timed.
    await drive({ times: 5 }, floorPut(SMALL));
    await drive({ times: 5 }, () => client.upload(SMALL));
    await cleanUp();
    // First, while the service's heap is still small: the growth a big upload causes on its own.
    const resident = await residentGrowth(label, client, env.app.process.pid!);
    await cleanUp();

    for (const shape of SHAPES) {
      rows.push(
        ...(await trio(
          shape,
          {
            name: `${label} floor: store.put ${shape.size}`,
            note: `${shape.note}; ${floorPath}`,
            run: floorPut(shape.bytes),
          },
          { note: 'node:http + digest check → store, no auth or DB', run: () => client.bareUpload(shape.bytes) },
          { name: `${label} POST /v1/users/{id}/blobs ${shape.size}`, run: () => client.upload(shape.bytes) },
        )),
      );
      if (store.kind === 'filesystem' && shape.bytes === LARGE) rows.push(await md5Ceiling(label, rows.at(-3)!.name));
      await cleanUp();
    }

    // Downloads: all three read the very same bytes from the same store.
    for (const shape of SHAPES) {
      const id = await client.upload(shape.bytes);
      const key = await objectKeyOf(store, user.userid, id);
      const bareName = await client.bareUpload(shape.bytes);
      rows.push(
        ...(await trio(
          shape,
          {
            name: `${label} floor: store.get ${shape.size}`,
            note: `${shape.note}; ${floorPath}`,
            run: async () => drain(await store.get(key), shape.bytes),
          },
          { note: 'node:http ← store, no auth or DB', run: () => client.bareDownload(bareName, shape.bytes) },
          { name: `${label} GET /v1/blobs/{id}/content ${shape.size}`, run: () => client.download(id, shape.bytes) },
        )),
      );
    }
    await cleanUp();

    rows.push(resident, await deviceLogs(label, env, user));
  } finally {
    client.agent.destroy();
  }
  return rows;
}

/** The service's object key for a blob, found in the store itself. */
async function objectKeyOf(store: ObjectStore, userId: string, blobId: string): Promise<string> {
  for await (const key of store.list(`blobs/${userId}/${blobId}/`)) return key;
  throw new Error(`no stored object for blob ${blobId}`);
}
