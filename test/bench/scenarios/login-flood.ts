import path from 'node:path';
import autocannon from 'autocannon';
import { BENCH_SECONDS, load, type Measurement } from '../harness';
import { startService, type BenchEnvironment } from '../setup';
import { signUpUser } from './seed';

const FLOOD_CONNECTIONS = 20;
/** The readers of /auth/user: a few other users going about their business. */
const READERS = 4;
/** What the issue asks: /auth/user's p99 under the flood within 3× of its p99 without it. */
const TARGET = 3;

/** Production mode serves /metrics only to its bearer token. */
const METRICS_TOKEN = 'bench-metrics-token-0123456789';

const basic = (login: string, password: string) => `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;

/** A metric's value at the service's /metrics. */
async function metric(url: string, name: string): Promise<number> {
  const metrics = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  const value = new RegExp(`^${name} (\\S+)$`, 'm').exec(await metrics.text())?.[1];
  if (value === undefined) throw new Error(`${name} is not at /metrics (${metrics.status})`);
  return Number(value);
}

/**
 * Issue 27 item 5: anonymous wrong-password logins from 20 connections at once (one address, as
 * an attacker's script) beside other users' `GET /auth/user`. The service runs with the budget
 * it measures at start-up (the bench's own instance has the budget out of reach); its p99 under
 * the flood is compared with its p99 alone. Before the budget, the flood took blob downloads
 * from 5 ms to 2.4 s at p50.
 */
export async function loginFloodScenarios(env: BenchEnvironment): Promise<Measurement[]> {
  const user = await signUpUser(env, 'flood-reader');
  const service = await startService(
    {
      databaseUrl: env.databaseUrl,
      dataDir: env.dataDir,
      clientsFile: path.join(env.dataDir, 'clients.json'),
      store: env.storeEnv,
    },
    { PASSWORD_CHECKS_PER_SECOND: '', METRICS_TOKEN },
  );
  try {
    // Tokens name their instance's issuer: the reader logs in on this one.
    const login = await fetch(`${service.url}/auth/login`, {
      method: 'POST',
      headers: { authorization: basic(user.email, user.password) },
    });
    if (!login.ok) throw new Error(`login answered ${login.status}`);
    const reader = {
      url: `${service.url}/auth/user`,
      headers: { 'x-tidepool-session-token': login.headers.get('x-tidepool-session-token')! },
      connections: READERS,
      cpuOf: service.process,
    };
    const alone = await load('GET /auth/user, alone (budget measured at start-up)', reader);
    const hashesBefore = await metric(service.url, 'islet_password_hashes_total');
    const [flood, during] = await Promise.all([
      autocannon({
        url: `${service.url}/auth/login`,
        method: 'POST',
        headers: { authorization: basic(user.email, 'a wrong guess') },
        connections: FLOOD_CONNECTIONS,
        duration: BENCH_SECONDS,
      }),
      load(`GET /auth/user during a ${FLOOD_CONNECTIONS}-connection login flood`, reader, alone.name),
    ]);
    const hashes = (await metric(service.url, 'islet_password_hashes_total')) - hashesBefore;
    const refused = flood.statusCodeStats?.['429']?.count ?? 0;
    const ratio = during.p99 / Math.max(alone.p99, 1);
    during.notes =
      `p99 ${ratio.toFixed(1)}× alone (target ≤ ${TARGET}×); flood ${flood.requests.average.toFixed(0)} req/s, ` +
      `${((100 * refused) / Math.max(flood.requests.total, 1)).toFixed(0)}% 429, ` +
      `${(hashes / flood.duration).toFixed(1)} hashes/s (budget ${(await metric(service.url, 'islet_password_budget_per_second')).toFixed(1)}/s)`;
    return [alone, during];
  } finally {
    await service.stop();
  }
}
