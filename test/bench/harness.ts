import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { freePort } from '../support/ports';

/** One measured row of the benchmark table. */
export interface Measurement {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  /** Extra columns (e.g. SQL statements per request). */
  notes?: string;
  /** Bytes moved per second, for rows that transfer content (shown only when some row has it). */
  mibPerSecond?: number;
  /** The row this one is compared with; ratio = this rate / floor rate. */
  floor?: string;
  /** CPU time the service process spent per request (shown only when some row has it). */
  cpuMsPerRequest?: number;
  /** CPU time PostgreSQL's processes on this machine spent per request (shown only when some row has it). */
  databaseCpuMsPerRequest?: number;
}

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  headers?: Record<string, string>;
  body?: string;
  connections?: number;
  seconds?: number;
  /**
   * The service's process: its CPU time per request is measured too. Unlike latency, it barely
   * moves when something else shares the machine, so it compares runs taken on a busy machine.
   */
  cpuOf?: ChildProcess;
  /**
   * Measure PostgreSQL's CPU time per request too: all of its processes on this machine (none
   * when it runs elsewhere), background writers included, so a row that makes the database
   * work harder shows it even where throughput is too noisy to.
   */
  databaseCpu?: boolean;
  /** A path (with query) for each request in turn, instead of `url`'s every time. */
  nextPath?: () => string;
}

export const BENCH_SECONDS = Number(process.env.BENCH_SECONDS ?? 8);

/** Linux counts a process's CPU time in ticks of 1/100 s (USER_HZ), whatever the kernel's own tick. */
const TICK_MS = 10;

/**
 * The fields of /proc/<pid>/stat after the command name (which is in parentheses and may itself
 * contain spaces): the state is index 0, then ppid 1, utime 11, stime 12, cutime 13, cstime 14.
 */
function statFields(stat: string): string[] {
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** User and system CPU time of a process so far, in milliseconds, from /proc/<pid>/stat. */
function cpuTimeMs(process: ChildProcess): number {
  const fields = statFields(fs.readFileSync(`/proc/${process.pid}/stat`, 'utf8'));
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

/**
 * CPU time of PostgreSQL on this machine so far, in milliseconds: every process named
 * `postgres`, and for the postmaster (the one whose parent is not) also the time of the children
 * it has reaped, so a connection closed during a run still counts.
 */
function postgresCpuTimeMs(): number {
  const processes = new Map<string, string[]>();
  for (const pid of fs.readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (stat.includes('(postgres)')) processes.set(pid, statFields(stat));
    } catch {
      // The process ended between the listing and the read.
    }
  }
  let ticks = 0;
  for (const fields of processes.values()) {
    ticks += Number(fields[11]) + Number(fields[12]);
    if (!processes.has(fields[1]!)) ticks += Number(fields[13]) + Number(fields[14]);
  }
  return ticks * TICK_MS;
}

/** Drives `url` over loopback with autocannon; any non-2xx answer counts as an error. */
export async function load(name: string, options: LoadOptions, floor?: string): Promise<Measurement> {
  const cpuBefore = options.cpuOf && cpuTimeMs(options.cpuOf);
  const databaseCpuBefore = options.databaseCpu ? postgresCpuTimeMs() : undefined;
  const result = await autocannon({
    url: options.url,
    method: options.method ?? 'GET',
    headers: options.headers,
    body: options.body,
    connections: options.connections ?? 16,
    duration: options.seconds ?? BENCH_SECONDS,
    ...(options.nextPath && {
      requests: [{ setupRequest: (request: autocannon.Request) => ({ ...request, path: options.nextPath!() }) }],
    }),
  });
  return {
    name,
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
    floor,
    cpuMsPerRequest:
      cpuBefore === undefined ? undefined : (cpuTimeMs(options.cpuOf!) - cpuBefore) / result.requests.total,
    databaseCpuMsPerRequest:
      databaseCpuBefore === undefined ? undefined : (postgresCpuTimeMs() - databaseCpuBefore) / result.requests.total,
  };
}

export interface ChildServer {
  url: string;
  process: ChildProcess;
  /** Where the process's output goes. */
  logFile: string;
  stop(): Promise<void>;
}

/** Starts a compiled server script as its own process and waits until `readyPath` answers. */
export async function startChild(
  script: string,
  env: Record<string, string>,
  readyPath = '/healthz',
  nodeFlags: readonly string[] = [],
): Promise<ChildServer> {
  // A PORT in `env` starts the server where an earlier one listened (a restart); else a free port.
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const logFile = path.join(os.tmpdir(), `islet-bench-${path.basename(script, '.js')}-${port}.log`);
  // Appended, so a restart on the same port keeps the log of the run before.
  const log = fs.openSync(logFile, 'a');
  // BENCH_PROFILE=<folder> writes a CPU profile of each server process there.
  const profile = process.env.BENCH_PROFILE
    ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.BENCH_PROFILE)}`]
    : [];
  const child = spawn(process.execPath, [...profile, ...nodeFlags, script], {
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', log, log],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let attempt = 0; attempt < 200; attempt += 1) {
    if (child.exitCode !== null) throw new Error(`${script} exited early; see ${logFile}`);
    // Bounded, so a server that accepts connections but never answers cannot stall the run.
    const ready = await fetch(`${url}${readyPath}`, { signal: AbortSignal.timeout(1000) }).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) {
      return {
        url,
        process: child,
        logFile,
        stop: () =>
          new Promise((resolve) => {
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
          }),
      };
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`${script} did not become ready; see ${logFile}`);
}

/** Prints the table: rate, latency percentiles, errors and the ratio to the row's floor. */
export function printTable(rows: Measurement[]): void {
  const byName = new Map(rows.map((row) => [row.name, row]));
  const withMiB = rows.some((row) => row.mibPerSecond !== undefined);
  const withCpu = rows.some((row) => row.cpuMsPerRequest !== undefined);
  const withDatabaseCpu = rows.some((row) => row.databaseCpuMsPerRequest !== undefined);
  const header = [
    'benchmark',
    'req/s',
    ...(withMiB ? ['MiB/s'] : []),
    'p50 ms',
    'p99 ms',
    'errors',
    'ratio to floor',
    ...(withCpu ? ['service CPU ms/req'] : []),
    ...(withDatabaseCpu ? ['PostgreSQL CPU ms/req'] : []),
    'notes',
  ];
  const lines = rows.map((row) => {
    const floor = row.floor ? byName.get(row.floor) : undefined;
    const isFloor = rows.some((other) => other.floor === row.name);
    const ratio = floor ? (row.requestsPerSecond / floor.requestsPerSecond).toFixed(2) : isFloor ? '(floor)' : '-';
    return [
      row.name,
      // Large transfers take longer than a second each: keep two decimals for those.
      row.requestsPerSecond.toFixed(row.requestsPerSecond < 10 ? 2 : 0),
      ...(withMiB ? [row.mibPerSecond?.toFixed(0) ?? '-'] : []),
      row.p50.toFixed(1),
      row.p99.toFixed(1),
      String(row.errors),
      ratio,
      ...(withCpu ? [row.cpuMsPerRequest?.toFixed(1) ?? '-'] : []),
      ...(withDatabaseCpu ? [row.databaseCpuMsPerRequest?.toFixed(1) ?? '-'] : []),
      row.notes ?? '',
    ];
  });
  const widths = header.map((title, column) => Math.max(title.length, ...lines.map((line) => line[column].length)));
  const format = (cells: string[]) => `| ${cells.map((cell, column) => cell.padEnd(widths[column])).join(' | ')} |`;
  console.log([format(header), format(widths.map((width) => '-'.repeat(width))), ...lines.map(format)].join('\n'));
}
