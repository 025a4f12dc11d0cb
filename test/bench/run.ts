import 'reflect-metadata';
import { printTable, type Measurement } from './harness';
import { accountScenarios } from './scenarios/accounts';
import { contentScenarios } from './scenarios/content';
import { sharingScenarios } from './scenarios/sharing';
import { tokenScenarios } from './scenarios/tokens';
import { startBenchEnvironment } from './setup';

/**
 * `npm run bench`: starts the service and its floor servers, drives them over loopback and
 * prints one table. Ratios compare rows measured in this same run, on this same machine.
 */
const SCENARIOS = {
  accounts: accountScenarios,
  tokens: tokenScenarios,
  sharing: sharingScenarios,
  content: contentScenarios,
};

/** BENCH_ONLY=accounts,sharing runs some scenarios; BENCH_SECONDS sets each run's length. */
const only = process.env.BENCH_ONLY?.split(',');

async function main(): Promise<void> {
  const env = await startBenchEnvironment();
  const rows: Measurement[] = [];
  try {
    for (const [name, scenario] of Object.entries(SCENARIOS)) {
      if (!only || only.includes(name)) rows.push(...(await scenario(env)));
    }
  } finally {
    await env.close();
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
