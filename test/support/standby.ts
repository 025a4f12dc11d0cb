import { execFile as execFileCallback, execFileSync, type ExecFileOptions } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { withDatabase } from '../../src/infra/database/postgres-server';
import type { DebianProgram } from './describe-with-program';
import { freePort } from './ports';

const execFile = promisify(execFileCallback);

/** The folder of the PostgreSQL server binaries (initdb, pg_ctl, pg_basebackup), or null. */
export function postgresBinaries(): string | null {
  const candidates: string[] = [];
  try {
    candidates.push(execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim());
  } catch {
    // No pg_config on the PATH: Debian's versioned folders, newest first.
  }
  const debian = '/usr/lib/postgresql';
  if (fs.existsSync(debian))
    for (const version of fs.readdirSync(debian).sort((a, b) => Number(b) - Number(a)))
      candidates.push(path.join(debian, version, 'bin'));
  const tools = ['initdb', 'pg_ctl', 'pg_basebackup', 'postgres'];
  return candidates.find((bin) => tools.every((tool) => fs.existsSync(path.join(bin, tool)))) ?? null;
}

/** What a replica suite needs: the server binaries, pg_basebackup among them. */
export const STANDBY_TOOLS: DebianProgram = {
  path: path.join(postgresBinaries() ?? '/usr/lib/postgresql/bin', 'pg_basebackup'),
  debianPackage: 'postgresql',
  requiredBy: 'REQUIRE_REPLICA',
};

/** A server of the pair: its URL (database `islet`) and what starts and stops it. */
export interface Server {
  url: string;
  port: number;
  /** The server's log: every statement, on the standby (log_statement = all). */
  log(): string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface PrimaryWithStandby {
  primary: Server;
  standby: Server;
  /** Stops both and removes their folders. */
  remove(): Promise<void>;
}

/** PostgreSQL refuses to run as root: as root, the clusters belong to, and run as, `postgres`. */
function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/** Settings for speed (a test cluster loses nothing it needs on a crash) and for streaming to a standby. */
const SETTINGS = [
  "listen_addresses = '127.0.0.1'",
  'wal_level = replica',
  'max_wal_senders = 4',
  'hot_standby = on',
  'fsync = off',
  'full_page_writes = off',
  'max_connections = 60',
];

async function waitForServer(url: string, standby: boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
    try {
      await client.connect();
      const { rows } = await client.query<{ standby: boolean }>('select pg_is_in_recovery() as standby');
      if (rows[0]!.standby === standby) return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    } finally {
      await client.end().catch(() => undefined);
    }
    if (Date.now() > deadline) throw new Error(`${url} did not come up`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * A fresh primary (initdb, database `islet`, on a free port in a temp folder) and a hot standby
 * made from it with pg_basebackup -R, streaming from it, on another port: what the replica
 * tests and benchmarks read from. A few seconds.
 */
export async function startPrimaryWithStandby({ sharedBuffers = '32MB' } = {}): Promise<PrimaryWithStandby> {
  const bin = postgresBinaries();
  if (!bin) throw new Error('no PostgreSQL server binaries');
  const owner = runAs();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'islet-replica-'));
  if (owner) fs.chownSync(root, owner.uid, owner.gid);
  const options: ExecFileOptions = { ...owner, cwd: root, env: { ...process.env, LC_ALL: 'C' } };
  const run = (tool: string, args: string[]) => execFile(path.join(bin, tool), args, options);
  const server = (name: string, port: number, extra: string[]): Server => {
    const data = path.join(root, name);
    const logFile = path.join(root, `${name}.log`);
    const url = `postgres://postgres@127.0.0.1:${port}/islet`;
    return {
      url,
      port,
      log: () => (fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : ''),
      start: async () => {
        const settings = ['-p', String(port), '-k', root, ...extra.flatMap((setting) => ['-c', setting])];
        await run('pg_ctl', ['-D', data, '-l', logFile, '-o', settings.join(' '), 'start']);
        await waitForServer(withDatabase(url, 'postgres'), name === 'standby');
      },
      stop: async () => {
        await run('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']).catch(() => undefined);
      },
    };
  };
  const primary = server('primary', await freePort(), []);
  const standby = server('standby', await freePort(), ['log_statement=all']);
  await run('initdb', ['-D', path.join(root, 'primary'), '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8']);
  const settings = [...SETTINGS, `shared_buffers = ${sharedBuffers}`];
  fs.appendFileSync(path.join(root, 'primary', 'postgresql.conf'), `${settings.join('\n')}\n`);
  await primary.start();
  const admin = new pg.Client({ connectionString: withDatabase(primary.url, 'postgres') });
  await admin.connect();
  await admin.query('create database islet');
  await admin.end();
  await run('pg_basebackup', [
    '-h',
    '127.0.0.1',
    '-p',
    String(primary.port),
    '-U',
    'postgres',
    '-D',
    path.join(root, 'standby'),
    '-R',
    '-X',
    'stream',
    '--checkpoint=fast',
    '--no-sync',
  ]);
  await standby.start();
  return {
    primary,
    standby,
    remove: async () => {
      await Promise.all([standby.stop(), primary.stop()]);
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}
