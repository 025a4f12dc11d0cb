import fs from 'node:fs';
import { ConfigError, loadConfig } from '../config';
import { secretsFile } from '../infra/secrets';
import { demoSummary, playgroundAddress, seedDemoClinic } from './demo-clinic';
import { seedProgress } from './seed-progress';

/**
 * `npm run seed`: the demo clinic of demo-clinic.ts, through the running service, with its
 * progress (a bar, or a line every few seconds without a terminal) and the playground's address.
 * Settings: SEED_URL (the service, default http://127.0.0.1:$PORT), SEED_PATIENTS (default 200),
 * DEMO_ADMIN_PASSWORD (default `islet-demo-admin`); refused when NODE_ENV=production.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  if (config.nodeEnv === 'production')
    throw new ConfigError('npm run seed makes demo data: it refuses to run with NODE_ENV=production');
  const base = process.env.SEED_URL ?? `http://127.0.0.1:${config.port}`;
  const count = Number(process.env.SEED_PATIENTS ?? 200);
  if (!Number.isInteger(count) || count < 1 || count > 10_000)
    throw new ConfigError('SEED_PATIENTS must be 1 to 10000');
  const file = secretsFile(config.dataDir);
  const secret =
    config.serverSecret ?? (fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')).serverSecret : undefined);
  if (!secret) throw new ConfigError(`no SERVER_SECRET and no ${file}: start the service first, or set SERVER_SECRET`);
  await assertReachable(base);
  const playground = await playgroundAddress(base);
  if (playground) process.stdout.write(`The GraphQL playground is at ${playground}\n`);
  const bar = seedProgress(count);
  const clinic = await seedDemoClinic({
    base,
    serverSecret: secret,
    adminPassword: process.env.DEMO_ADMIN_PASSWORD ?? 'islet-demo-admin',
    patients: count,
    onPatient: () => bar.increment(),
  }).finally(() => bar.stop());
  process.stdout.write(demoSummary(base, clinic, count, playground));
}

/** Says what to do when nothing answers at `base`, instead of the HTTP client's bare "fetch failed". */
async function assertReachable(base: string): Promise<void> {
  try {
    await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(5_000) });
  } catch {
    throw new ConfigError(`nothing answers at ${base}: start the service (npm start) first, or set SEED_URL`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof ConfigError ? error.message : ((error as Error)?.stack ?? error)}\n`);
  process.exit(1);
});
