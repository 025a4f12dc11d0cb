import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { BENCH_SECONDS, type Measurement } from '../harness';
import type { BenchEnvironment } from '../setup';
import { signUpUser } from './seed';
import { liveClient } from '../../support/live';

const RECORDS_PER_REQUEST = 1000;
const CONNECTIONS = 4;
const FIVE_MINUTES = 5 * 60_000;
const START = Date.UTC(2026, 0, 1);

/** The n-th 5-minute CGM reading of a synthetic trace from `start`: a daily wave with noise, as a monitor sends it. */
function reading(n: number, start = START) {
  const minutes = (n * 5) % 1440;
  return {
    type: 'cbg',
    time: new Date(start + n * FIVE_MINUTES).toISOString(),
    value: Math.round(140 + 50 * Math.sin((minutes / 1440) * 2 * Math.PI) + ((n * 37) % 23)),
    units: 'mg/dL',
    sampleInterval: 300000,
    deviceId: 'bench-cgm',
  };
}

const batch = (first: number) => Array.from({ length: RECORDS_PER_REQUEST }, (_, index) => reading(first + index));

interface Timed {
  latencies: number[];
  errors: number;
  seconds: number;
  /** CPU time of the service's process per request, when `drive` was given it. */
  cpuMs?: number;
}

/** User and system CPU time of a process so far, in ms: /proc/<pid>/stat's utime and stime, in ticks of 10 ms. */
function cpuTimeMs(process: ChildProcess): number {
  const stat = fs.readFileSync(`/proc/${process.pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * Runs `request` from CONNECTIONS workers for BENCH_SECONDS, each call with the next batch number;
 * with `service`, also the CPU time that process spent per request (it barely moves when other
 * work shares the machine, unlike the rates).
 */
async function drive(request: (batchNumber: number) => Promise<void>, service?: ChildProcess): Promise<Timed> {
  const cpuBefore = service && cpuTimeMs(service);
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  const started = performance.now();
  const end = started + BENCH_SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < end) {
        const number = next++;
        const start = performance.now();
        await request(number).catch(() => (errors += 1));
        latencies.push(performance.now() - start);
      }
    }),
  );
  return {
    latencies: latencies.sort((a, b) => a - b),
    errors,
    seconds: (performance.now() - started) / 1000,
    cpuMs: cpuBefore === undefined ? undefined : (cpuTimeMs(service!) - cpuBefore) / latencies.length,
  };
}

function measurement(name: string, timed: Timed, floor?: string, notes?: string): Measurement {
  const at = (share: number) =>
    timed.latencies[Math.min(timed.latencies.length - 1, Math.floor(timed.latencies.length * share))] ?? 0;
  // Rows are readings per second: each request carries RECORDS_PER_REQUEST of them.
  return {
    name,
    requestsPerSecond: (timed.latencies.length * RECORDS_PER_REQUEST) / timed.seconds,
    p50: at(0.5),
    p99: at(0.99),
    errors: timed.errors,
    floor,
    notes,
    cpuMsPerRequest: timed.cpuMs,
  };
}

/**
 * Issue 14: readings/s through Tidepool's upload API beside a plain multi-row INSERT of the same
 * rows, the time from an upload's response to its summary, and the table's size per million
 * readings.
 */
export async function glucoseScenarios(env: BenchEnvironment): Promise<Measurement[]> {
  const user = await signUpUser(env, 'uploader');
  const headers = { 'x-tidepool-session-token': user.token, 'content-type': 'application/json' };
  const openDataset = async (body: object) => {
    const response = await fetch(`${env.app.url}/v1/users/${user.userid}/datasets`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
    });
    if (response.status !== 201) throw new Error(`dataset answered ${response.status}: ${await response.text()}`);
    return ((await response.json()) as { data: { id: string } }).data.id;
  };
  const client = new pg.Client({ connectionString: env.databaseUrl });
  await client.connect();
  const pool = new pg.Pool({ connectionString: env.databaseUrl, max: CONNECTIONS });
  try {
    // The floor: the same rows, as one INSERT of 1,000 rows per statement, straight on PostgreSQL,
    // in a shape of their own (what the readings of a dataset share).
    const floorOffset = 10_000_000;
    const { rows: shapes } = await client.query<{ id: number }>(
      `insert into glucose_reading_shapes (user_id, dataset_id, digest, type, minutes, device_id, fields, first_time, last_time)
       values ($1, 'floor', md5('floor')::uuid, 'cbg', 5, 'bench-cgm', '{"sampleInterval": 300000}', now(), now())
       returning id`,
      [user.userid],
    );
    const floor = measurement(
      'floor: INSERT of 1,000 readings per statement',
      await drive(async (number) => {
        const rows = batch(floorOffset + number * RECORDS_PER_REQUEST);
        const values = rows.map(
          (_, index) =>
            `($1, $${index * 3 + 3}::timestamptz, md5($${index * 3 + 4})::uuid, $2::int, $${index * 3 + 5}::float8 / 18.01559, true, now())`,
        );
        await pool.query(
          `insert into glucose_readings (user_id, time, id, shape, value, active, created_time)
           values ${values.join(', ')}`,
          [user.userid, shapes[0]!.id, ...rows.flatMap((row, index) => [row.time, `${number}-${index}`, row.value])],
        );
      }),
    );

    const afterFloor = await storage(client);
    const datasetId = await openDataset({
      deduplicator: { name: 'org.tidepool.deduplicator.dataset.drop.hash' },
      deviceId: 'bench-cgm',
    });
    const uploaded = measurement(
      'POST /v1/datasets/{id}/data (1,000 readings per request)',
      await drive(async (number) => {
        const response = await fetch(`${env.app.url}/v1/datasets/${datasetId}/data`, {
          method: 'POST',
          headers,
          body: JSON.stringify(batch(number * RECORDS_PER_REQUEST)),
        });
        if (response.status !== 200) throw new Error(`data answered ${response.status}`);
        await response.arrayBuffer();
      }, env.app.process),
      floor.name,
      `readings/s; ${CONNECTIONS} connections, dataset.drop.hash`,
    );

    const all = await storage(client);
    const mib = (bytes: number, rows: number) => ((bytes / rows) * 1e6) / 2 ** 20;
    uploaded.notes +=
      `; ${mib(all.bytes, all.rows).toFixed(0)} MiB per million readings (table and indexes), ` +
      `${mib(all.bytes - afterFloor.bytes, all.rows - afterFloor.rows).toFixed(0)} for the uploaded ones alone`;

    const summarised = await uploadToSummary(env, headers, await openDataset({ dataSetType: 'continuous' }));
    const live = await uploadToDashboard(env);
    return [floor, uploaded, summarised, live];
  } finally {
    await pool.end();
    await client.end();
  }
}

/**
 * The readings' tables and indexes (their shapes included) and how many readings they hold. The
 * floor's rows come first, written by four connections into the middle of the primary key; what
 * the uploads add after them is their own size.
 */
async function storage(client: pg.Client): Promise<{ bytes: number; rows: number }> {
  const { rows } = await client.query<{ bytes: string; rows: string }>(
    `select (select sum(pg_total_relation_size(inhrelid)) from pg_inherits where inhparent = 'glucose_readings'::regclass)
              + pg_total_relation_size('glucose_reading_shapes') as bytes,
            (select count(*) from glucose_readings) as rows`,
  );
  return { bytes: Number(rows[0]!.bytes), rows: Number(rows[0]!.rows) };
}

/** `promise`, or an error saying `what` after `ms`. */
async function within<T>(ms: number, promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(what)), ms)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** A day of readings ending at the current 5 minutes, `shift` ms later (so each upload adds newer records). */
const recentDay = (shift: number) => {
  const start = Math.floor(Date.now() / FIVE_MINUTES) * FIVE_MINUTES - 288 * FIVE_MINUTES + shift;
  return Array.from({ length: 288 }, (_, index) => reading(index, start));
};

/**
 * From an upload's response to a dashboard subscribed to the uploader's summary (graphql-ws)
 * receiving the new numbers: the path a clinic's live view takes.
 */
async function uploadToDashboard(env: BenchEnvironment): Promise<Measurement> {
  // A user of its own: access tokens live 5 minutes, and the scenarios before took longer.
  const user = await signUpUser(env, 'live');
  const opened = await fetch(`${env.app.url}/v1/users/${user.userid}/datasets`, {
    method: 'POST',
    headers: { 'x-tidepool-session-token': user.token, 'content-type': 'application/json' },
    body: JSON.stringify({ dataSetType: 'continuous' }),
  });
  if (opened.status !== 201) throw new Error(`dataset answered ${opened.status}`);
  const datasetId = ((await opened.json()) as { data: { id: string } }).data.id;
  const dashboard = liveClient(env.app.url, user.token);
  const updates = dashboard.subscribe(
    'subscription ($userId: ID!) { glucoseSummaryUpdated(userId: $userId) { glucoseSummary(period: ONE_DAY) { cgm { dates { lastData } } } } }',
    { userId: user.userid },
  );
  const latencies: number[] = [];
  try {
    // The first upload also waits for the subscription to be in place; it is not counted.
    for (let upload = 0; upload <= 10; upload += 1) {
      const records = recentDay(upload * 1000);
      const response = await fetch(`${env.app.url}/v1/datasets/${datasetId}/data`, {
        method: 'POST',
        headers: { 'x-tidepool-session-token': user.token, 'content-type': 'application/json' },
        body: JSON.stringify(records),
      });
      if (response.status !== 200) throw new Error(`data answered ${response.status}`);
      const answered = performance.now();
      const newest = records.at(-1)!.time;
      for (;;) {
        const { data, errors } = await within(30_000, updates.next(), 'the dashboard received no update within 30 s');
        if (errors) throw new Error(`the subscription answered ${JSON.stringify(errors)}`);
        if (data!.glucoseSummaryUpdated.glucoseSummary?.cgm?.dates.lastData === newest) break;
      }
      if (upload > 0) latencies.push(performance.now() - answered);
    }
  } finally {
    await updates.stop();
    await dashboard.dispose();
  }
  latencies.sort((a, b) => a - b);
  const p50 = latencies[Math.floor(latencies.length / 2)]!;
  return {
    name: 'upload response → subscribed dashboard receives it',
    requestsPerSecond: 1000 / p50,
    p50,
    p99: latencies.at(-1)!,
    errors: 0,
    notes: `${latencies.length} uploads of 288 readings, dashboard on graphql-ws; target p50 < 1000 ms`,
  };
}

/**
 * From an upload's response to the summary that counts it: a continuous dataset gets a day of
 * readings per upload, and the caller polls its summary until its newest reading shows.
 */
async function uploadToSummary(
  env: BenchEnvironment,
  headers: Record<string, string>,
  datasetId: string,
): Promise<Measurement> {
  const latencies: number[] = [];
  // Summaries count readings from two years back to a day ahead: these are the last ten days.
  const start = Math.floor(Date.now() / FIVE_MINUTES) * FIVE_MINUTES - 10 * 288 * FIVE_MINUTES;
  const query = JSON.stringify({
    query: '{ me { glucoseSummary(period: ONE_DAY) { cgm { dates { lastData outdatedSince } } } } }',
  });
  for (let day = 0; day < 10; day += 1) {
    const records = Array.from({ length: 288 }, (_, index) => reading(day * 288 + index, start));
    const response = await fetch(`${env.app.url}/v1/datasets/${datasetId}/data`, {
      method: 'POST',
      headers,
      body: JSON.stringify(records),
    });
    if (response.status !== 200) throw new Error(`data answered ${response.status}`);
    const answered = performance.now();
    const newest = records.at(-1)!.time;
    for (;;) {
      const reply = await fetch(`${env.app.url}/graphql`, { method: 'POST', headers, body: query });
      const cgm = (
        (await reply.json()) as {
          data: {
            me: {
              glucoseSummary: { cgm: { dates: { lastData: string; outdatedSince: string | null } } | null } | null;
            };
          };
        }
      ).data.me.glucoseSummary?.cgm;
      if (cgm?.dates.lastData === newest && cgm.dates.outdatedSince === null) break;
      if (performance.now() - answered > 30_000) throw new Error('the summary did not count the upload within 30 s');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    latencies.push(performance.now() - answered);
  }
  latencies.sort((a, b) => a - b);
  return {
    name: 'upload response → summary updated (288 readings)',
    requestsPerSecond: 1000 / latencies[Math.floor(latencies.length / 2)]!,
    p50: latencies[Math.floor(latencies.length / 2)]!,
    p99: latencies.at(-1)!,
    errors: 0,
    notes: `${latencies.length} uploads; target p50 < 1000 ms`,
  };
}
