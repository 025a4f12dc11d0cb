import { execFile, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { S3Settings } from '../../src/config';

const run = promisify(execFile);

/**
 * Starts/stops a throw-away OpenStack Swift + s3api server (see the script's header). Found from
 * the sources (jest) and from the compiled copy in dist/ (the bench), which has no shell scripts.
 */
export const SWIFT_S3_SCRIPT = [
  path.join(__dirname, 's3-server', 'start-swift-s3.sh'),
  path.resolve(__dirname, '../../../test/support/s3-server/start-swift-s3.sh'),
].find((file) => fs.existsSync(file))!;
const PYTHON = process.env.SWIFT_S3_PYTHON ?? '/usr/bin/python3';

/** Environment variables through which global-setup.ts hands the shared server to test files. */
export const S3_ENV = {
  endpoint: 'ISLET_TEST_S3_ENDPOINT',
  accessKey: 'ISLET_TEST_S3_ACCESS_KEY',
  secretKey: 'ISLET_TEST_S3_SECRET_KEY',
  region: 'ISLET_TEST_S3_REGION',
  workdir: 'ISLET_TEST_S3_WORKDIR',
} as const;

export interface TestS3Server {
  /** Settings for S3Store / S3_* variables; `bucket` is a fresh random name (created lazily). */
  settings: S3Settings;
  workdir: string;
  /** Stops the servers; the data stays in `workdir`, so restart() brings it back. */
  stop(): Promise<void>;
  /** Starts the stopped servers again on the same port (same endpoint, same data). */
  restart(): Promise<void>;
  /** Stops the servers and deletes the work dir if startS3Server created it. */
  destroy(): Promise<void>;
}

let installed: boolean | undefined;

/** Whether Debian's python3-swift (with s3api) is importable. */
export function swiftInstalled(): boolean {
  installed ??=
    spawnSync(PYTHON, ['-c', 'import swift.common.middleware.s3api, xattr, eventlet'], { stdio: 'ignore' }).status ===
    0;
  return installed;
}

/** A bucket name nobody else uses: each test file (or test) gets its own. */
export function randomBucket(): string {
  return `islet-test-${randomBytes(6).toString('hex')}`;
}

async function script(args: string[]): Promise<string> {
  try {
    const { stdout } = await run('bash', [SWIFT_S3_SCRIPT, ...args], {
      // the servers stop by themselves once this process exits (crashed or killed test run)
      env: { ...process.env, SWIFT_S3_WATCH_PID: String(process.pid) },
      timeout: 60_000,
    });
    return stdout;
  } catch (error) {
    const { stderr } = error as { stderr?: string };
    throw new Error(`${path.basename(SWIFT_S3_SCRIPT)} ${args.join(' ')} failed:\n${stderr ?? String(error)}`, {
      cause: error,
    });
  }
}

/**
 * Starts a Swift S3 server in `workdir` (default: a new temporary folder) on `port` (default:
 * a free one). About 2-3 s and 250 MB of RSS: tests use the shared server (sharedS3Settings), or
 * startS3Outage (s3-outage.ts) to take it down and bring it back.
 */
export async function startS3Server(workdir?: string, port = 0): Promise<TestS3Server> {
  const ownDir = workdir === undefined;
  const dir = workdir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'islet-swift-'));
  const stdout = await script(['start', dir, String(port)]);
  const started = JSON.parse(stdout.trim().split('\n').pop()!) as Omit<S3Settings, 'bucket'>;
  const settings: S3Settings = { ...started, bucket: randomBucket() };
  const boundPort = new URL(started.endpoint).port;
  let running = true;
  const stop = async () => {
    if (!running) return;
    await script(['stop', dir]);
    running = false;
  };
  return {
    settings,
    workdir: dir,
    stop,
    async restart() {
      if (running) await stop();
      await script(['start', dir, boundPort]);
      running = true;
    },
    async destroy() {
      if (fs.existsSync(dir)) await stop();
      if (ownDir) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The per-run server started by global-setup.ts, with a fresh bucket; undefined if none runs. */
export function sharedS3Settings(bucket = randomBucket()): S3Settings | undefined {
  const endpoint = process.env[S3_ENV.endpoint];
  if (!endpoint) return undefined;
  return {
    endpoint,
    accessKey: process.env[S3_ENV.accessKey]!,
    secretKey: process.env[S3_ENV.secretKey]!,
    region: process.env[S3_ENV.region]!,
    bucket,
  };
}

/** Why S3 suites cannot run here, or undefined when they can. */
export function s3Missing(): string | undefined {
  if (!swiftInstalled()) {
    return `OpenStack Swift is not importable by ${PYTHON} (apt-get install --no-install-recommends python3-swift)`;
  }
  if (!process.env[S3_ENV.endpoint]) return 'no shared Swift server was started (test/support/global-setup.ts)';
  return undefined;
}

/**
 * For global-setup.ts: starts the shared server and publishes it through S3_ENV. Without
 * python3-swift it does nothing (suites skip), unless REQUIRE_S3=1 (then it throws).
 */
export async function startSharedS3Server(): Promise<void> {
  if (!swiftInstalled()) {
    if (process.env.REQUIRE_S3 === '1') {
      throw new Error(`REQUIRE_S3=1 but OpenStack Swift is not importable by ${PYTHON}: install python3-swift`);
    }
    return;
  }
  const server = await startS3Server(fs.mkdtempSync(path.join(os.tmpdir(), `islet-swift-${process.pid}-`)));
  process.env[S3_ENV.endpoint] = server.settings.endpoint;
  process.env[S3_ENV.accessKey] = server.settings.accessKey;
  process.env[S3_ENV.secretKey] = server.settings.secretKey;
  process.env[S3_ENV.region] = server.settings.region;
  process.env[S3_ENV.workdir] = server.workdir;
}

/** For global-teardown.ts: stops the shared server and deletes its data. */
export async function stopSharedS3Server(): Promise<void> {
  const workdir = process.env[S3_ENV.workdir];
  if (!workdir || !fs.existsSync(workdir)) return;
  await script(['stop', workdir]);
  fs.rmSync(workdir, { recursive: true, force: true });
  for (const name of Object.values(S3_ENV)) delete process.env[name];
}
