import 'reflect-metadata';
import { residentMiB, SoakService } from './environment';
import { Ledger } from './ledger';
import { RequestFailed, send, Tally } from './outcomes';
import { printChecks, printSummary, printUnexpected, progressLine } from './report';
import { peakCheck, residentCheck, type ResidentSample } from './resident';
import { SummaryWatch } from './subscription';
import { verifyWrites, type Check } from './verify';
import { worker, type Context } from './workload';
import { createWorld } from './world';

/**
 * `npm run soak`: the service under a mixed workload while it is restarted twice (SIGTERM) and
 * its database is cut once; then every acknowledged write is checked. SOAK_SECONDS sets the
 * length (600), SOAK_WORKERS the concurrency (8), SOAK_REPORT_SECONDS the progress interval (15).
 */
const setting = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const DURATION_MS = setting('SOAK_SECONDS', 600) * 1000;
const WORKERS = setting('SOAK_WORKERS', 8);
const REPORT_MS = setting('SOAK_REPORT_SECONDS', 15) * 1000;
const CUT_MS = 5_000;
const WARM_UP_MS = Math.min(60_000, DURATION_MS / 10);
const UPLOADERS = 4;
const PATIENTS = 8;

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls /readyz until the service says its dependencies answer. */
async function ready(service: SoakService): Promise<void> {
  for (;;) {
    const answered = await send(`${service.url}/readyz`, {}, 200).catch((error: unknown) => {
      if (error instanceof RequestFailed && error.kind !== 'failure') return undefined;
      throw error;
    });
    if (answered) return;
    await sleep(200);
  }
}

/** Two restarts (at 1/3 and 2/3 of the run) and a database cut between them; answers when each service life began. */
async function faults(service: SoakService, tally: Tally, starts: number[]): Promise<void> {
  const at = async (share: number) => sleep(Math.max(0, share * DURATION_MS - tally.now()));
  const restart = async (label: string) => {
    await tally.fault(label, async () => {
      const begun = tally.now();
      await service.stop();
      const exited = tally.now();
      await service.start();
      return `exited ${seconds(exited - begun)} after SIGTERM, answered ${seconds(tally.now() - exited)} after starting`;
    });
    starts.push(tally.now());
  };
  await at(1 / 3);
  await restart('restart 1 (SIGTERM)');
  await at(1 / 2);
  await tally.fault('database cut', async () => {
    await service.setDatabaseAvailable(false);
    await sleep(CUT_MS);
    await service.setDatabaseAvailable(true);
    const allowed = tally.now();
    await ready(service);
    return `ready ${seconds(tally.now() - allowed)} after connections were allowed again`;
  });
  await at(2 / 3);
  await restart('restart 2 (SIGTERM)');
}

/** Each life of the service after the first connection receives live updates. */
function liveCheck(watch: SummaryWatch, starts: readonly number[]): Check {
  const lives = starts.map((start, index) => ({ start, end: starts[index + 1] ?? Infinity }));
  const perLife = lives.map(({ start, end }) => watch.updates.filter((at) => at >= start && at < end).length);
  return {
    name: 'live updates in every life of the service',
    pass: perLife.every((count) => count > 0),
    detail: `updates per life: ${perLife.join(', ')}; ${watch.connections} connections`,
  };
}

async function main(): Promise<void> {
  const service = await SoakService.create();
  let passed = false;
  try {
    await service.start();
    console.log(`soak: ${DURATION_MS / 1000} s, ${WORKERS} workers; service log ${service.logFile}`);
    const world = await createWorld(service.url, UPLOADERS, PATIENTS);
    const ledger = new Ledger();
    const tally = new Tally();
    const starts = [0];
    const samples: ResidentSample[] = [];
    const watch = new SummaryWatch(service.url, world.clinician, world.patients[0]!.userId, tally);
    watch.start();
    const sampler = setInterval(() => {
      const mib = service.pid === undefined ? undefined : residentMiB(service.pid);
      if (mib !== undefined) samples.push({ at: tally.now(), mib });
    }, 1000);
    let reported = 0;
    const reporter = setInterval(() => {
      console.log(progressLine(tally, reported, samples.at(-1)?.mib, watch.updates.length));
      reported = tally.now();
    }, REPORT_MS);
    const context: Context = { baseUrl: service.url, world, ledger };
    const running = () => tally.now() < DURATION_MS;
    await Promise.all([
      faults(service, tally, starts),
      ...Array.from({ length: WORKERS }, () => worker(context, tally, running)),
    ]);
    clearInterval(sampler);
    clearInterval(reporter);
    await watch.stop();

    printSummary(tally, DURATION_MS);
    const unexpected = tally.unexpected();
    printUnexpected(unexpected);
    console.log('verifying what was written…');
    const checks = [
      ...(await verifyWrites(service, world, ledger)),
      {
        name: 'errors only during the cut and the restarts',
        pass: !unexpected.length,
        detail: `${unexpected.length} unexpected of ${tally.outcomes.filter((o) => o.kind !== 'ok').length} errors`,
      },
      residentCheck(samples, starts, DURATION_MS, WARM_UP_MS),
      peakCheck(samples),
      liveCheck(watch, starts),
    ];
    printChecks(checks);
    passed = checks.every((check) => check.pass);
  } finally {
    if (passed) await service.destroy();
    else {
      await service.stop();
      console.log(`kept for inspection: database ${service.databaseUrl}, DATA_DIR ${service.dataDir}`);
    }
  }
  if (!passed) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
