import { createHash, randomBytes, randomInt } from 'node:crypto';
import type { Account } from './accounts';
import { pick, type Ledger } from './ledger';
import { bearer, graphql, json, RequestFailed, send, type Tally } from './outcomes';
import { reading, READINGS_PER_UPLOAD, slotsAvailable, type World } from './world';

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');
const md5 = (bytes: Buffer | string) => createHash('md5').update(bytes).digest('base64');

export interface Context {
  baseUrl: string;
  world: World;
  ledger: Ledger;
}

interface Operation {
  name: string;
  /** How often it is picked, relative to the others. */
  weight: number;
  run(context: Context): Promise<void>;
}

const someUploader = ({ world }: Context) => pick(world.uploaders)!;
const someAccount = ({ world }: Context) => pick([...world.uploaders, world.clinician])!;

async function get(context: Context, account: Account, path: string): Promise<Buffer> {
  return (await send(`${context.baseUrl}${path}`, { headers: bearer(await account.accessToken()) }, 200)).body;
}

/** Reads stored content back and compares it with what was sent. */
async function readBack(context: Context, path: string, expected: { owner: Account; sha256: string }): Promise<void> {
  const body = await get(context, expected.owner, path);
  if (sha256(body) !== expected.sha256) throw new RequestFailed('failure', `${path} differs from what was uploaded`);
}

async function uploadBlob(context: Context): Promise<void> {
  const owner = someUploader(context);
  const bytes = randomBytes(randomInt(1024, 128 * 1024));
  const answer = await send(
    `${context.baseUrl}/v1/users/${owner.userId}/blobs`,
    {
      method: 'POST',
      headers: {
        ...bearer(await owner.accessToken()),
        'content-type': 'application/octet-stream',
        digest: `md5=${md5(bytes)}`,
      },
      body: bytes,
    },
    201,
  );
  context.ledger.addBlob({ id: json<{ id: string }>(answer).id, owner, sha256: sha256(bytes) });
}

async function uploadDeviceLog(context: Context): Promise<void> {
  const owner = someUploader(context);
  const start = Date.now() - 3_600_000;
  const entries = Array.from({ length: randomInt(20, 400) }, (_, index) => ({
    type: index % 2 ? 'receive' : 'send',
    managerIdentifier: 'com.example.pump-manager',
    deviceIdentifier: 'pump-soak',
    timestamp: new Date(start + index * 1000).toISOString(),
    message: `message ${index}: ${randomBytes(16).toString('hex')}`,
  }));
  const body = JSON.stringify(entries);
  const answer = await send(
    `${context.baseUrl}/v1/users/${owner.userId}/device_logs`,
    {
      method: 'POST',
      headers: {
        ...bearer(await owner.accessToken()),
        'content-type': 'application/json',
        digest: `md5=${md5(body)}`,
        'x-logs-start-at-time': new Date(start).toISOString(),
        'x-logs-end-at-time': new Date(start + entries.length * 1000).toISOString(),
      },
      body,
    },
    201,
  );
  context.ledger.addDeviceLog({ id: json<{ id: string }>(answer).id, owner, sha256: sha256(body) });
}

/** A day of readings for a patient, uploaded by the clinician; the batch is on the ledger before it is sent. */
async function uploadGlucose(context: Context): Promise<void> {
  const { world, ledger } = context;
  const patient = pick(world.patients.filter((candidate) => slotsAvailable(world, candidate)));
  if (!patient) return;
  const batch = { userId: patient.userId, first: patient.nextSlot, count: READINGS_PER_UPLOAD, acknowledged: false };
  patient.nextSlot += READINGS_PER_UPLOAD;
  ledger.batches.push(batch);
  const records = Array.from({ length: batch.count }, (_, index) => reading(world, batch.first + index));
  await send(
    `${context.baseUrl}/v1/datasets/${patient.datasetId}/data`,
    {
      method: 'POST',
      headers: { ...bearer(await world.clinician.accessToken()), 'content-type': 'application/json' },
      body: JSON.stringify(records),
    },
    200,
  );
  batch.acknowledged = true;
}

const BLOB_LIST = `query ($userId: ID!) { blobs(userId: $userId, first: 20) { totalCount nodes { id size digestMD5 } } }`;

export const OPERATIONS: Operation[] = [
  { name: 'login (password grant)', weight: 1, run: (context) => someAccount(context).logIn() },
  { name: 'refresh grant', weight: 2, run: (context) => someAccount(context).refresh() },
  {
    name: 'REST list blobs',
    weight: 2,
    run: async (context) => {
      const owner = someUploader(context);
      await get(context, owner, `/v1/users/${owner.userId}/blobs`);
    },
  },
  {
    name: 'REST read blob content',
    weight: 3,
    run: async (context) => {
      const blob = context.ledger.someBlob();
      if (blob) await readBack(context, `/v1/blobs/${blob.id}/content`, blob);
    },
  },
  {
    name: 'GraphQL list blobs',
    weight: 3,
    run: async (context) => {
      const owner = someUploader(context);
      await graphql(context.baseUrl, bearer(await owner.accessToken()), BLOB_LIST, { userId: owner.userId });
    },
  },
  { name: 'REST upload blob', weight: 3, run: uploadBlob },
  { name: 'REST upload device log', weight: 2, run: uploadDeviceLog },
  {
    name: 'REST read device log',
    weight: 1,
    run: async (context) => {
      const log = context.ledger.someDeviceLog();
      if (log) await readBack(context, `/v1/device_logs/${log.id}/content`, log);
    },
  },
  { name: 'REST upload glucose (288)', weight: 3, run: uploadGlucose },
  {
    name: 'REST clinic patient list',
    weight: 2,
    run: async (context) => {
      const { world } = context;
      await get(context, world.clinician, `/v1/clinics/${world.clinicId}/patients?limit=50&sort=-lastReviewed`);
    },
  },
  {
    name: 'REST TIDE report',
    weight: 1,
    run: async (context) => {
      const { world } = context;
      const cutoff = encodeURIComponent(new Date(Date.now() - 30 * 24 * 3_600_000).toISOString());
      await get(
        context,
        world.clinician,
        `/v1/clinics/${world.clinicId}/tide_report?period=7d&tags=${world.tagId}&lastDataCutoff=${cutoff}`,
      );
    },
  },
];

const TOTAL_WEIGHT = OPERATIONS.reduce((sum, operation) => sum + operation.weight, 0);

function someOperation(): Operation {
  let ticket = Math.random() * TOTAL_WEIGHT;
  for (const operation of OPERATIONS) if ((ticket -= operation.weight) < 0) return operation;
  return OPERATIONS.at(-1)!;
}

/** While the service is down or its database away, a worker waits this long before its next request instead of spinning. */
const BACK_OFF_MS = 250;

/** One of the workload's workers: picks operations by weight until `running()` turns false. */
export async function worker(context: Context, tally: Tally, running: () => boolean): Promise<void> {
  while (running()) {
    const operation = someOperation();
    const start = tally.now();
    try {
      await operation.run(context);
      tally.record(operation.name, 'ok', start);
    } catch (error) {
      const failed = error instanceof RequestFailed ? error : new RequestFailed('failure', String(error));
      tally.record(operation.name, failed.kind, start, failed.detail);
      if (failed.kind !== 'failure') await new Promise((resolve) => setTimeout(resolve, BACK_OFF_MS));
    }
  }
}
