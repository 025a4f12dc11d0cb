import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import type { TestApp } from '../app';

/**
 * Tables a refused request may change by design: the access log records every refusal, and
 * the login guard counts failed logins (src/auth/login-guard.ts). Everything else is state a
 * refused request must leave as it was.
 */
const WRITTEN_BY_REFUSALS = new Set(['access_log_records', 'access_log_hours', 'login_failures']);

/**
 * Sweepers remove expired rows (revoked sessions, OIDC records) in the background, whatever the
 * request: only rows that stay unexpired for the next minute count.
 */
const UNEXPIRED = ` where t.expires_at is null or t.expires_at > now() + interval '1 minute'`;

/** Each table's row count and a digest of its rows, and each stored file's digest, by name. */
export type Snapshot = Record<string, string>;

/** Takes snapshots of the service's database and object store (the filesystem store's folder). */
export class StateProbe {
  private constructor(
    private readonly client: pg.Client,
    private readonly statement: string,
    private readonly dataDir: string,
  ) {}

  static async open(app: TestApp): Promise<StateProbe> {
    const client = new pg.Client({ connectionString: app.database.url });
    await client.connect();
    const { rows } = await client.query<{ name: string }>(
      `select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition order by 1`,
    );
    const tables = rows.map((row) => row.name).filter((name) => !WRITTEN_BY_REFUSALS.has(name));
    const expiring = await client.query<{ name: string }>(
      `select table_name as name from information_schema.columns where table_schema = 'public' and column_name = 'expires_at'`,
    );
    const expiringTables = new Set(expiring.rows.map((row) => row.name));
    const statement = tables
      .map(
        (name) =>
          `select '${name}' as name, count(*)::text || ':' || md5(coalesce(string_agg(t::text, E'\\n' order by t::text), '')) as digest from "${name}" t${expiringTables.has(name) ? UNEXPIRED : ''}`,
      )
      .join(' union all ');
    return new StateProbe(client, statement, app.config.dataDir);
  }

  async take(): Promise<Snapshot> {
    const [{ rows }, files] = await Promise.all([
      // Prepared once: planning a scan of every partition of the glucose tables costs more than running it.
      this.client.query<{ name: string; digest: string }>({ name: 'fuzz-snapshot', text: this.statement }),
      filesUnder(this.dataDir),
    ]);
    return { ...Object.fromEntries(rows.map((row) => [`table ${row.name}`, row.digest])), ...files };
  }

  /**
   * A snapshot once the state stops moving: work a request that succeeded left running (a
   * summary update, a cleanup) must not be blamed on the next one.
   */
  async settled(): Promise<Snapshot> {
    let previous = await this.take();
    for (let attempt = 0; attempt < 20; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      const next = await this.take();
      if (changesBetween(previous, next).length === 0) return next;
      previous = next;
    }
    return previous;
  }

  /**
   * What changed since `before`, once any cleanup the request left running has had a moment to
   * finish (a refused upload's partial file is removed after the answer is sent).
   */
  async changesSince(before: Snapshot): Promise<string[]> {
    let changes: string[] = [];
    for (let attempt = 0; attempt < 5; attempt++) {
      changes = changesBetween(before, await this.take());
      if (changes.length === 0) return changes;
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
    return changes;
  }

  /** Runs SQL on the probe's connection. */
  async query(sql: string, values: unknown[]): Promise<Record<string, unknown>[]> {
    return (await this.client.query(sql, values)).rows;
  }

  close(): Promise<void> {
    return this.client.end();
  }
}

export function changesBetween(before: Snapshot, after: Snapshot): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...names].filter((name) => before[name] !== after[name]).sort();
}

async function filesUnder(root: string): Promise<Snapshot> {
  const entries = await fs.readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
  const files = await Promise.all(
    entries
      .filter((entry) => entry.isFile())
      .map(async (entry) => {
        const file = path.join(entry.parentPath, entry.name);
        const bytes = await fs.readFile(file).catch(() => undefined);
        const digest = bytes ? createHash('sha1').update(bytes).digest('hex') : 'vanished';
        return [`file ${path.relative(root, file)}`, digest] as const;
      }),
  );
  return Object.fromEntries(files);
}
