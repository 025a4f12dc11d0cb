import 'reflect-metadata';
import { printTable, type Measurement } from './harness';
import { startBenchS3 } from './s3';
import { accountScenarios } from './scenarios/accounts';
import { clinicPatientScenarios } from './scenarios/clinic-patients';
import { clinicPatientFilterScenarios } from './scenarios/clinic-patient-filters';
import { clinicPatientCsvScenarios } from './scenarios/clinic-patients-csv';
import { contentScenarios } from './scenarios/content';
import { glucoseScenarios } from './scenarios/glucose';
import { agpScenarios } from './scenarios/agp';
import { dataExportScenarios } from './scenarios/data-export';
import { sharingScenarios } from './scenarios/sharing';
import { tokenScenarios } from './scenarios/tokens';
import { tideScenarios } from './scenarios/tide';
import { accessLogScenarios } from './scenarios/access-log';
import { loginFloodScenarios } from './scenarios/login-flood';
import { legacyPagingScenarios } from './scenarios/legacy-paging';
import { replicaScenarios } from './scenarios/replicas';
import { largeClinicScenarios } from './scenarios/large-clinic';
import { startBenchEnvironment, type BenchEnvironment } from './setup';

/**
 * `npm run bench`: starts the service and its floor servers, drives them over loopback and
 * prints one table. Ratios compare rows measured in this same run, on this same machine.
 */
const SCENARIOS: Record<string, (env: BenchEnvironment) => Promise<Measurement[]>> = {
  accounts: accountScenarios,
  tokens: tokenScenarios,
  sharing: sharingScenarios,
  'clinic-patients': clinicPatientScenarios,
  glucose: glucoseScenarios,
  agp: agpScenarios,
  'data-export': dataExportScenarios,
  'clinic-patient-filters': clinicPatientFilterScenarios,
  'clinic-patients-csv': clinicPatientCsvScenarios,
  tide: tideScenarios,
  'access-log': accessLogScenarios,
  'login-flood': loginFloodScenarios,
  'legacy-paging': legacyPagingScenarios,
  'large-clinic': largeClinicScenarios,
};

/**
 * BENCH_ONLY=accounts,s3-content runs some scenarios; BENCH_SECONDS sets each run's length;
 * BENCH_SCALE=100000 adds a clinic of that many patients beside one of 10,000 (`large-clinic`).
 */
const only = process.env.BENCH_ONLY?.split(',');
const wanted = (name: string) => !only || only.includes(name);

/**
 * The content rows, each store in a service of its own: a service that has just hashed
 * passwords holds freed memory that would hide an upload's growth.
 */
async function content(storeEnv: Record<string, string>, label: string): Promise<Measurement[]> {
  const env = await startBenchEnvironment(storeEnv, label);
  try {
    return await contentScenarios(env);
  } finally {
    await env.close();
  }
}

async function s3Content(): Promise<Measurement[]> {
  const s3 = await startBenchS3();
  if (!s3) {
    console.error('s3-content skipped: no S3_ENDPOINT and no python3-swift to start an S3 server with');
    return [];
  }
  console.error(`s3-content: ${s3.origin}`);
  try {
    return await content(s3.env, 's3');
  } finally {
    await s3.close();
  }
}

async function main(): Promise<void> {
  const rows: Measurement[] = [];
  const env = await startBenchEnvironment();
  try {
    for (const [name, scenario] of Object.entries(SCENARIOS)) if (wanted(name)) rows.push(...(await scenario(env)));
  } finally {
    await env.close();
  }
  // On a primary and a standby of their own (clusters started for the rows).
  if (wanted('replicas')) rows.push(...(await replicaScenarios()));
  if (wanted('content')) rows.push(...(await content({}, 'fs')));
  if (wanted('s3-content')) {
    // A broken S3 run must not throw away the rows measured so far.
    rows.push(
      ...(await s3Content().catch((error: unknown) => {
        console.error('s3-content failed:', error);
        process.exitCode = 1;
        return [];
      })),
    );
  }
  printTable(rows);
  const failing = rows.filter((row) => row.errors > 0);
  if (failing.length) {
    console.error(`request errors in: ${failing.map((row) => row.name).join(', ')}`);
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
