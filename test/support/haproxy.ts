import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { DebianProgram } from './describe-with-program';
import { eventually } from './eventually';
import { freePort } from './ports';

export const HAPROXY: DebianProgram = {
  path: '/usr/sbin/haproxy',
  debianPackage: 'haproxy',
  requiredBy: 'REQUIRE_HAPROXY',
};

/** What HAProxy's runtime API (its stats socket) says of one backend server. */
export type ServerState = 'UP' | 'DOWN' | 'MAINT' | 'DRAIN' | string;

export interface LoadBalancer {
  url: string;
  /** Stops sending new requests to `server` (`drain`), sends them again (`ready`), as a rolling restart does. */
  setState(server: string, state: 'drain' | 'ready'): Promise<void>;
  /** The server's state and the connections it holds now. */
  server(server: string): Promise<{ status: ServerState; current: number }>;
  stop(): Promise<void>;
}

/**
 * Round robin over `backends` (name → port), each checked at GET /readyz every 250 ms: out after
 * three failed checks (one slow answer on a loaded machine must not take a server out), back
 * after one good one. A request whose connection fails is sent again to
 * another server (safe for any method: nothing reached the first). Each request gets its own
 * connection to its server, so a server going away never takes a reused connection with it.
 */
function configuration(port: number, socket: string, backends: Record<string, number>): string {
  return [
    'global',
    '  log stderr format raw local0',
    `  stats socket ${socket} mode 600 level admin`,
    'defaults',
    '  mode http',
    '  log global',
    '  option httplog',
    '  timeout connect 2s',
    '  timeout client 60s',
    '  timeout server 60s',
    '  timeout tunnel 1h',
    '  retries 3',
    '  option redispatch 1',
    '  retry-on conn-failure',
    '  option http-server-close',
    '  option forwardfor',
    'frontend web',
    `  bind 127.0.0.1:${port}`,
    '  default_backend islet',
    'backend islet',
    '  balance roundrobin',
    '  option httpchk GET /readyz',
    '  http-check expect status 200',
    '  timeout check 2s',
    '  default-server inter 250 fall 3 rise 1',
    ...Object.entries(backends).map(([name, backendPort]) => `  server ${name} 127.0.0.1:${backendPort} check`),
    '',
  ].join('\n');
}

/** One command to HAProxy's runtime API; answers its reply. */
function command(socket: string, line: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const connection = net.connect(socket);
    let reply = '';
    connection.on('data', (chunk) => (reply += chunk.toString()));
    connection.on('end', () => resolve(reply));
    connection.on('error', reject);
    connection.end(`${line}\n`);
  });
}

/** Debian's HAProxy in front of `backends`, in the foreground as a child of the test. */
export async function startLoadBalancer(backends: Record<string, number>): Promise<LoadBalancer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'islet-haproxy-'));
  const socket = path.join(dir, 'admin.sock');
  const port = await freePort();
  fs.writeFileSync(path.join(dir, 'haproxy.cfg'), configuration(port, socket, backends));
  const log = fs.openSync(path.join(dir, 'haproxy.log'), 'a');
  const child: ChildProcess = spawn(HAPROXY.path, ['-db', '-f', path.join(dir, 'haproxy.cfg')], {
    stdio: ['ignore', log, log],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const server = async (name: string) => {
    const csv = await command(socket, 'show stat');
    const header = csv.split('\n')[0]!.replace(/^# /, '').split(',');
    const row = csv
      .split('\n')
      .map((line) => line.split(','))
      .find((fields) => fields[0] === 'islet' && fields[1] === name);
    if (!row) throw new Error(`HAProxy has no server ${name}`);
    return { status: row[header.indexOf('status')]!, current: Number(row[header.indexOf('scur')]) };
  };
  await eventually(
    async () =>
      fs.existsSync(socket) &&
      (await server(Object.keys(backends)[0]!).then(
        () => true,
        () => false,
      )),
    `HAProxy answers on its socket (see ${dir}/haproxy.log)`,
  );
  return {
    url: `http://127.0.0.1:${port}`,
    setState: async (name, state) => void (await command(socket, `set server islet/${name} state ${state}`)),
    server,
    async stop() {
      child.kill('SIGTERM');
      await exited;
      if (!process.env.KEEP_HAPROXY_LOG) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
