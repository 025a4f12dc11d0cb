import { createHash } from 'node:crypto';
import pg from 'pg';
import { loadConfig } from '../../src/config';
import { createObjectStore } from '../../src/infra/object-store';
import { serverLogin } from '../bench/scenarios/seed';
import { benchView } from './accounts';
import { STORE_ENV, type SoakService } from './environment';
import type { Acknowledged, Ledger } from './ledger';
import { bearer, graphql, RequestFailed, send } from './outcomes';
import { slotTime, type World } from './world';

/** One checked target: what was checked, whether it holds, and what was found. */
export interface Check {
  name: string;
  pass: boolean;
  detail: string;
}

const SETTLE_MS = 180_000;
const READ_BACK_CONCURRENCY = 8;

/** Waits until no upload is pending and no summary is outdated: the state every check below reads. */
async function settle(database: pg.Client): Promise<string> {
  const deadline = Date.now() + SETTLE_MS;
  for (;;) {
    const { rows } = await database.query<{ pending: number; outdated: number }>(
      `select (select count(*)::int from pending_objects) as pending,
              (select count(*)::int from glucose_summaries where outdated_since is not null) as outdated`,
    );
    const { pending, outdated } = rows[0]!;
    if (!pending && !outdated) return 'settled';
    if (Date.now() > deadline) return `still ${pending} pending uploads and ${outdated} outdated summaries`;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/** Reads every acknowledged item back through the API; answers those missing or different. */
async function unreadable(baseUrl: string, items: Acknowledged[], path: (id: string) => string): Promise<string[]> {
  const bad: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: READ_BACK_CONCURRENCY }, async () => {
      while (next < items.length) {
        const item = items[next++]!;
        try {
          const { body } = await send(
            `${baseUrl}${path(item.id)}`,
            { headers: bearer(await item.owner.accessToken()) },
            200,
          );
          if (createHash('sha256').update(body).digest('hex') !== item.sha256) bad.push(`${item.id}: content differs`);
        } catch (error) {
          bad.push(`${item.id}: ${error instanceof RequestFailed ? error.detail : String(error)}`);
        }
      }
    }),
  );
  return bad;
}

/** Object-store keys without a record, and records whose key has no object. */
async function orphans(service: SoakService, database: pg.Client) {
  const store = createObjectStore(loadConfig({ ...process.env, ...STORE_ENV, DATA_DIR: service.dataDir }));
  const stored = new Set<string>();
  for await (const key of store.list('')) stored.add(key);
  const { rows } = await database.query<{ key: string }>(
    `select object_key as key from blobs where object_key is not null
     union all select object_key from device_logs`,
  );
  const recorded = new Set(rows.map((row) => row.key));
  return {
    stored: stored.size,
    withoutRecord: [...stored].filter((key) => !recorded.has(key)),
    withoutContent: [...recorded].filter((key) => !stored.has(key)),
  };
}

/**
 * Every acknowledged batch of readings is stored whole, an unacknowledged one whole or not at
 * all, and nothing else is stored.
 */
async function glucoseProblems(world: World, ledger: Ledger, database: pg.Client): Promise<string[]> {
  const problems: string[] = [];
  for (const patient of world.patients) {
    const { rows } = await database.query<{ time: Date }>(
      'select time from glucose_readings where user_id = $1 and active',
      [patient.userId],
    );
    const stored = new Set(rows.map((row) => row.time.getTime()));
    let accounted = 0;
    for (const batch of ledger.batches.filter((candidate) => candidate.userId === patient.userId)) {
      let present = 0;
      for (let slot = batch.first; slot < batch.first + batch.count; slot += 1)
        if (stored.has(slotTime(world, slot))) present += 1;
      accounted += present;
      if (batch.acknowledged ? present !== batch.count : present !== 0 && present !== batch.count)
        problems.push(
          `${patient.userId}: ${batch.acknowledged ? 'acknowledged' : 'unanswered'} batch from slot ${batch.first} has ${present} of ${batch.count} readings`,
        );
    }
    if (accounted !== stored.size)
      problems.push(`${patient.userId}: ${stored.size - accounted} stored readings that no upload sent`);
  }
  return problems;
}

interface SummaryRow {
  user_id: string;
  kind: string;
  first_data: Date | null;
  last_data: Date | null;
  periods: unknown;
}

const summaries = async (database: pg.Client, userIds: string[]) =>
  (
    await database.query<SummaryRow>(
      `select user_id, kind, first_data, last_data, periods from glucose_summaries
        where user_id = any($1) order by user_id, kind`,
      [userIds],
    )
  ).rows;

/** Paths where two JSON values differ; numbers may differ in their last bits (sums taken in another order). */
function differences(a: unknown, b: unknown, path = ''): string[] {
  if (typeof a === 'number' && typeof b === 'number')
    return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b)) ? [] : [`${path}: ${a} ≠ ${b}`];
  if (a instanceof Date && b instanceof Date)
    return a.getTime() === b.getTime() ? [] : [`${path}: ${a.toISOString()} ≠ ${b.toISOString()}`];
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].flatMap((key) =>
      differences((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], `${path}.${key}`),
    );
  }
  return a === b ? [] : [`${path}: ${JSON.stringify(a)} ≠ ${JSON.stringify(b)}`];
}

/** The summaries as the updates left them, against the same summaries rebuilt from every reading by the service. */
async function summaryProblems(service: SoakService, world: World, database: pg.Client) {
  const userIds = world.patients.map((patient) => patient.userId);
  const updated = await summaries(database, userIds);
  const server = { 'x-tidepool-session-token': await serverLogin(benchView(service.url)) };
  for (const userId of userIds)
    await graphql(
      service.url,
      server,
      'mutation ($input: RebuildGlucoseSummariesInput!) { rebuildGlucoseSummaries(input: $input) { userId } }',
      { input: { userId } },
    );
  const rebuilt = await summaries(database, userIds);
  return { count: updated.length, problems: differences(updated, rebuilt).slice(0, 20) };
}

/** The checks of what the soak wrote, once the workload has stopped and the service runs with its database. */
export async function verifyWrites(service: SoakService, world: World, ledger: Ledger): Promise<Check[]> {
  const database = new pg.Client({ connectionString: service.databaseUrl });
  await database.connect();
  try {
    const settled = await settle(database);
    const lostBlobs = await unreadable(service.url, [...ledger.blobs.values()], (id) => `/v1/blobs/${id}/content`);
    const lostLogs = await unreadable(
      service.url,
      [...ledger.deviceLogs.values()],
      (id) => `/v1/device_logs/${id}/content`,
    );
    const glucose = await glucoseProblems(world, ledger, database);
    const content = await orphans(service, database);
    const summary = await summaryProblems(service, world, database);
    const acknowledgedBatches = ledger.batches.filter((batch) => batch.acknowledged).length;
    const sample = (items: string[]) => (items.length ? `; e.g. ${items.slice(0, 5).join(', ')}` : '');
    return [
      { name: 'settled after the run', pass: settled === 'settled', detail: settled },
      {
        name: '0 lost acknowledged writes',
        pass: !lostBlobs.length && !lostLogs.length && !glucose.length,
        detail:
          `${ledger.blobs.size} blobs (${lostBlobs.length} lost or different), ${ledger.deviceLogs.size} device logs ` +
          `(${lostLogs.length} lost or different), ${acknowledgedBatches} glucose uploads ` +
          `(${glucose.length} incomplete)${sample([...lostBlobs, ...lostLogs, ...glucose])}`,
      },
      {
        name: '0 orphans',
        pass: !content.withoutRecord.length && !content.withoutContent.length,
        detail:
          `${content.stored} stored objects; ${content.withoutRecord.length} without a record, ` +
          `${content.withoutContent.length} records without content${sample([...content.withoutRecord, ...content.withoutContent])}`,
      },
      {
        name: 'summaries equal a full rebuild',
        pass: summary.count === world.patients.length && !summary.problems.length,
        detail: `${summary.count} summaries of ${world.patients.length} patients; ${summary.problems.length} differences${sample(summary.problems)}`,
      },
    ];
  } finally {
    await database.end();
  }
}
