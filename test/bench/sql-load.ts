import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { BENCH_SECONDS, type Measurement } from './harness';

/**
 * A floor row: `connections` clients running one hand-written statement straight on PostgreSQL
 * for BENCH_SECONDS, as many at once as the HTTP rows beside it.
 */
export async function sqlLoad(name: string, databaseUrl: string, sql: string, params: unknown[], connections = 16) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: connections });
  try {
    const latencies: number[] = [];
    const end = performance.now() + BENCH_SECONDS * 1000;
    let errors = 0;
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (performance.now() < end) {
          const start = performance.now();
          await pool.query(sql, params).catch(() => (errors += 1));
          latencies.push(performance.now() - start);
        }
      }),
    );
    latencies.sort((a, b) => a - b);
    const at = (share: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * share))];
    return {
      name,
      requestsPerSecond: latencies.length / BENCH_SECONDS,
      p50: at(0.5),
      p99: at(0.99),
      errors,
    } satisfies Measurement;
  } finally {
    await pool.end();
  }
}
