import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { withDatabase } from '../../src/infra/database/postgres-server';
import type { DebianProgram } from './describe-with-program';
import { eventually } from './eventually';
import { freePort } from './ports';

export const PGBOUNCER: DebianProgram = {
  path: process.env.PGBOUNCER_PATH ?? '/usr/sbin/pgbouncer',
  debianPackage: 'pgbouncer',
  requiredBy: 'REQUIRE_PGBOUNCER',
};

export interface TestPgBouncer {
  /** `databaseUrl` (a database on the server PgBouncer fronts) as reached through PgBouncer. */
  urlOf(databaseUrl: string): string;
  /** Runs a command (`show pools`, `show servers`) on PgBouncer's admin console. */
  admin(command: string): Promise<Record<string, any>[]>;
  stop(): Promise<void>;
}

/** The settings file: every database of the server, in transaction pooling, as operators run it. */
function settings(server: URL, port: number, authFile: string): string {
  const user = decodeURIComponent(server.username || 'postgres');
  return [
    '[databases]',
    // Any database name a client asks for, on the server of `server`: each test file has its own.
    `* = host=${server.hostname} port=${server.port || 5432}`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    'pool_mode = transaction',
    'default_pool_size = 4',
    'auth_type = trust',
    // Trust still looks the user up here; its password is what PgBouncer logs in to the server with.
    `auth_file = ${authFile}`,
    `admin_users = ${user}`,
    // PgBouncer refuses to run as root; started as root (a container), it changes to this user.
    ...(process.getuid?.() === 0 ? ['user = nobody'] : []),
  ].join('\n');
}

/**
 * Starts PgBouncer on a free loopback port, in front of the server of `serverUrl` (the tests'
 * admin URL), from a generated ini in a temporary folder; `stop` ends it and removes the folder.
 */
export async function startPgBouncer(serverUrl: string): Promise<TestPgBouncer> {
  const server = new URL(serverUrl);
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'islet-pgbouncer-'));
  // Readable by the user PgBouncer changes to when started as root.
  fs.chmodSync(dir, 0o755);
  const authFile = path.join(dir, 'users.txt');
  const user = decodeURIComponent(server.username || 'postgres');
  const quote = (text: string) => `"${text.replace(/"/g, '""')}"`;
  fs.writeFileSync(authFile, `${quote(user)} ${quote(decodeURIComponent(server.password))}\n`, { mode: 0o644 });
  const ini = path.join(dir, 'pgbouncer.ini');
  fs.writeFileSync(ini, settings(server, port, authFile), { mode: 0o644 });

  const output: string[] = [];
  const child: ChildProcess = spawn(PGBOUNCER.path, [ini], { stdio: ['ignore', 'pipe', 'pipe'] });
  for (const stream of [child.stdout, child.stderr]) stream?.on('data', (chunk: Buffer) => output.push(String(chunk)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const urlOf = (databaseUrl: string) => {
    const url = new URL(databaseUrl);
    url.hostname = '127.0.0.1';
    url.port = String(port);
    return url.toString();
  };
  const admin = async (command: string) => {
    // The admin console speaks the simple protocol only: no parameters.
    const client = new pg.Client({ connectionString: withDatabase(urlOf(serverUrl), 'pgbouncer') });
    await client.connect();
    try {
      return (await client.query(command)).rows;
    } finally {
      await client.end();
    }
  };
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    await eventually(
      async () => {
        if (child.exitCode !== null) throw new Error(`pgbouncer exited: ${output.join('')}`);
        return admin('show version').then(
          () => true,
          () => false,
        );
      },
      'PgBouncer answers',
      10_000,
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { urlOf, admin, stop };
}
