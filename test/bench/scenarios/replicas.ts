import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { postgresBinaries, startPrimaryWithStandby } from '../../support/standby';
import type { Measurement } from '../harness';
import { BENCH_CLIENTS, NO_S3, publicUrl, startService } from '../setup';
import { clinicPatientScenarios } from './clinic-patients';
import { tideScenarios } from './tide';

const METRICS_TOKEN = 'bench-metrics-token-0123456789';
const CLUSTER = '[primary + standby] ';

/** Reads the service with the replica sent where (its islet_replica_reads_total), for the log. */
async function readsServed(url: string): Promise<string> {
  const response = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  const lines = (await response.text()).split('\n').filter((line) => line.startsWith('islet_replica_reads_total{'));
  return lines.join('; ') || 'no stale-tolerant reads counted';
}

/**
 * The patient list and TIDE rows on a cluster of their own, a primary and a hot standby
 * (test/support/standby.ts): each row measured on a service reading only the primary, then on
 * one reading from the standby (DATABASE_REPLICA_URLS), both on the same database and data.
 * On one machine the standby adds no CPU: the rows show what routing costs and what a replica
 * answers, not the capacity a replica on its own host adds.
 */
export async function replicaScenarios(): Promise<Measurement[]> {
  if (!postgresBinaries()) {
    console.error('replicas skipped: no PostgreSQL server binaries (initdb, pg_ctl, pg_basebackup)');
    return [];
  }
  const pair = await startPrimaryWithStandby({ sharedBuffers: '128MB' });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'islet-bench-replicas-'));
  const clientsFile = path.join(dataDir, 'clients.json');
  fs.writeFileSync(clientsFile, JSON.stringify({ dev1: BENCH_CLIENTS }));
  const settings = { databaseUrl: pair.primary.url, dataDir, clientsFile, store: NO_S3 };
  try {
    const app = await startService(settings);
    // Behind one address, as instances behind a load balancer: the tokens of one are the other's.
    const replica = await startService(settings, {
      DATABASE_REPLICA_URLS: pair.standby.url,
      METRICS_TOKEN,
      PUBLIC_URL: publicUrl(app.url),
    }).catch(async (error: unknown) => {
      await app.stop();
      throw error;
    });
    try {
      const env = { app, replica, databaseUrl: pair.primary.url };
      const rows = [...(await clinicPatientScenarios(env)), ...(await tideScenarios(env))];
      console.error(`replicas: ${await readsServed(replica.url)}`);
      return rows.map((row) => ({ ...row, name: CLUSTER + row.name, floor: row.floor && CLUSTER + row.floor }));
    } finally {
      await Promise.all([app.stop(), replica.stop()]);
    }
  } finally {
    await pair.remove();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
