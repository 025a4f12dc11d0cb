import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startChild, type ChildServer } from '../bench/harness';
import { DEV_CLIENT_SECRET, SERVER_SECRET } from './app';
import { compiledService } from './compiled-service';
import { createTestDatabase, type TestDatabase } from './database';
import { startLoadBalancer, type LoadBalancer } from './haproxy';
import { freePort } from './ports';

/** One instance: a process of its own on a port that stays its own across restarts. */
export interface Instance {
  name: string;
  url: string;
  /** SIGKILL: the process ends at once, mid-request, as a crash or an OOM kill would end it. */
  kill(): Promise<void>;
  /** SIGTERM, as an orchestrator stops it; answers how long it took to exit, in ms. */
  stop(): Promise<number>;
  start(): Promise<void>;
}

export interface Cluster {
  balancer: LoadBalancer;
  instances: Instance[];
  database: TestDatabase;
  /** Stops every instance, the balancer, and releases the database. */
  close(): Promise<void>;
}

const exitOf = (child: ChildServer) =>
  new Promise<void>((resolve) => {
    if (child.process.exitCode !== null || child.process.signalCode !== null) resolve();
    else child.process.once('exit', () => resolve());
  });

/**
 * `count` instances of the service as separate processes on one database and one object store
 * (the filesystem store in a shared folder, as a shared volume or S3 would be), behind HAProxy
 * (round robin), whose address is every instance's PUBLIC_URL: the issuer of every token.
 */
export async function startCluster(count: number, env: Record<string, string> = {}): Promise<Cluster> {
  const [main, database] = await Promise.all([compiledService(), createTestDatabase()]);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'islet-cluster-'));
  const ports = await Promise.all(Array.from({ length: count }, () => freePort()));
  const names = ports.map((_, index) => `i${index + 1}`);
  const balancer = await startLoadBalancer(Object.fromEntries(names.map((name, index) => [name, ports[index]!])));
  const settings = {
    NODE_ENV: 'test',
    HOST: '127.0.0.1',
    PUBLIC_URL: balancer.url,
    TRUST_PROXY: '1',
    DATABASE_URL: database.url,
    DATABASE_POOL_SIZE: '4',
    DATA_DIR: dataDir,
    S3_ENDPOINT: '',
    SERVER_SECRET,
    DEV_CLIENT_SECRET,
    PASSWORD_CHECKS_PER_SECOND: '10000',
    // Hashing at OWASP's cost would take about 50 ms of CPU per sign-up and login (docs/security.md).
    PASSWORD_HASH_MEMORY_KIB: '1024',
    PASSWORD_HASH_PASSES: '1',
    LOG_LEVEL: 'warn',
    ...env,
  };
  const instances = names.map((name, index): Instance => {
    let child: ChildServer | undefined;
    const start = async () => {
      child = await startChild(main, { ...settings, PORT: String(ports[index]) }, '/readyz');
    };
    return {
      name,
      url: `http://127.0.0.1:${ports[index]}`,
      start,
      async kill() {
        const running = child!;
        running.process.kill('SIGKILL');
        await exitOf(running);
      },
      async stop() {
        const began = Date.now();
        const running = child!;
        running.process.kill('SIGTERM');
        await exitOf(running);
        return Date.now() - began;
      },
    };
  });
  await Promise.all(instances.map((instance) => instance.start()));
  return {
    balancer,
    instances,
    database,
    async close() {
      await Promise.all(instances.map((instance) => instance.stop().catch(() => 0)));
      await balancer.stop();
      await database.release();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
