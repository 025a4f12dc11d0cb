import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/infra/logger';
import { startService, type RunningService } from '../../src/service';
import { migrations } from '../../migrations';
import { DEV_CLIENT_SECRET, SERVER_SECRET } from '../support/app';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { signUp } from '../support/accounts';
import { call } from '../support/http';

/**
 * A deployment's first start: two instances behind one load balancer start at the same moment
 * on an empty database. Each runs the migrations at start-up; they must run once, and both
 * instances must come up and serve the same data.
 */
let database: TestDatabase;
const dataDirs: string[] = [];
let instances: RunningService[] = [];

beforeAll(async () => {
  database = await createTestDatabase({ empty: true });
  const start = () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'islet-concurrent-'));
    dataDirs.push(dataDir);
    const config = loadConfig({
      NODE_ENV: 'test',
      PORT: '0',
      DATABASE_URL: database.url,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      SERVER_SECRET,
      DEV_CLIENT_SECRET,
      DATABASE_POOL_SIZE: '2',
    });
    return startService(config, createLogger('silent'));
  };
  instances = await Promise.all([start(), start()]);
});
afterAll(async () => {
  await Promise.all(instances.map((instance) => instance.close()));
  await database?.release();
  for (const dataDir of dataDirs) fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('two instances starting together on an empty database', () => {
  it('applied every migration once', async () => {
    const recorded = await database.query('select name from schema_migrations order by id');
    expect(recorded.map((row) => row.name)).toEqual(migrations.map((migration) => migration.name));
  });

  it('both serve: an account made through one logs in through the other', async () => {
    const [first, second] = instances;
    for (const instance of instances) expect((await call(instance.url, '/healthz')).status).toBe(200);
    const { email, password } = await signUp(first!, 'concurrent');
    const login = await call(second!.url, '/auth/login', {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}` },
    });
    expect(login.status).toBe(200);
    expect(login.body.emails).toEqual([email]);
  });
});
