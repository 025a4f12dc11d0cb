import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { withDatabase } from '../../src/infra/database/postgres-server';
import type { ChildServer } from '../bench/harness';
import { BENCH_CLIENTS, startService } from '../bench/setup';
import { adminQuery, quoteIdent, testPostgresAdminUrl } from '../support/postgres';
import { freePort } from '../support/ports';

/** The filesystem store: S3 variables of the soak's own environment are not passed on. */
export const STORE_ENV = { S3_ENDPOINT: '', S3_ACCESS_KEY: '', S3_SECRET_KEY: '', S3_BUCKET: '' };
/** A short upload deadline, so the sweeper settles what an outage left pending within the run. */
export const UPLOAD_TIMEOUT_SECONDS = 30;

/**
 * The service as the bench runs it (compiled, its own process, production mode), on a database
 * and DATA_DIR of its own that outlive the process: it can be stopped and started again on the
 * same port, and its database can be taken away and given back.
 */
export class SoakService {
  private child: ChildServer | undefined;

  private constructor(
    private readonly adminUrl: string,
    readonly databaseName: string,
    readonly databaseUrl: string,
    readonly dataDir: string,
    private readonly clientsFile: string,
    private readonly port: number,
  ) {}

  static async create(): Promise<SoakService> {
    const { adminUrl } = await testPostgresAdminUrl();
    const name = `islet_soak_${process.pid}`;
    await adminQuery(adminUrl, `drop database if exists ${quoteIdent(name)}`);
    await adminQuery(adminUrl, `create database ${quoteIdent(name)}`);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'islet-soak-'));
    const clientsFile = path.join(dataDir, 'clients.json');
    fs.writeFileSync(clientsFile, JSON.stringify({ dev1: BENCH_CLIENTS }));
    return new SoakService(adminUrl, name, withDatabase(adminUrl, name), dataDir, clientsFile, await freePort());
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The running process's id; undefined while it is down. */
  get pid(): number | undefined {
    return this.child?.process.exitCode === null ? this.child.process.pid : undefined;
  }

  get logFile(): string | undefined {
    return this.child?.logFile;
  }

  /** Starts the service and resolves once it answers /healthz. */
  async start(): Promise<void> {
    this.child = await startService(
      { databaseUrl: this.databaseUrl, dataDir: this.dataDir, clientsFile: this.clientsFile, store: STORE_ENV },
      { PORT: String(this.port), UPLOAD_TIMEOUT_SECONDS: String(UPLOAD_TIMEOUT_SECONDS) },
    );
  }

  /** SIGTERM, as an orchestrator stops it; resolves once the process has exited. */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (child && child.process.exitCode === null && child.process.signalCode === null) await child.stop();
  }

  /** Refuses new connections to the database and cuts the open ones (the service's pool among them), or allows them again. */
  async setDatabaseAvailable(available: boolean): Promise<void> {
    await adminQuery(this.adminUrl, `alter database ${quoteIdent(this.databaseName)} allow_connections ${available}`);
    if (!available)
      await adminQuery(
        this.adminUrl,
        `select pg_terminate_backend(pid) from pg_stat_activity where datname = '${this.databaseName}' and pid <> pg_backend_pid()`,
      );
  }

  /** Stops the service and removes its database and DATA_DIR. */
  async destroy(): Promise<void> {
    await this.stop();
    await adminQuery(this.adminUrl, `drop database if exists ${quoteIdent(this.databaseName)} with (force)`);
    fs.rmSync(this.dataDir, { recursive: true, force: true });
  }
}

/** The resident set of a process in MiB, from /proc/<pid>/status. */
export function residentMiB(pid: number): number | undefined {
  try {
    const kilobytes = /^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return kilobytes ? Number(kilobytes[1]) / 1024 : undefined;
  } catch {
    // The process has just exited.
    return undefined;
  }
}
