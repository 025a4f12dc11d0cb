import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadConfig, REALMS } from '../../src/config';
import { createLogger } from '../../src/infra/logger';
import { startService } from '../../src/service';
import { passwordGrant, signUp, type TestAccount } from '../support/accounts';
import { SERVER_SECRET, startTestApp, type TestApp } from '../support/app';
import { call } from '../support/http';

let app: TestApp;
let alice: TestAccount;

beforeAll(async () => {
  app = await startTestApp({ TOKEN_RATE_LIMIT: '1000' });
  alice = await signUp(app, 'alice');
});
afterAll(() => app?.stop());

/** The development client's grants in a realm of the service at `url`. */
const devClientGrant = (url: string, realm: string, secret: string) =>
  call(url, `/realms/${realm}/protocol/openid-connect/token`, {
    form: { grant_type: 'client_credentials', client_id: 'islet-dev', client_secret: secret },
  });

describe('tokens of every realm', () => {
  it('are accepted by the API, each verified with its own realm’s keys (one set of accounts serves every realm)', async () => {
    for (const realm of REALMS) {
      const grant = await passwordGrant(app, realm, alice.email, alice.password);
      expect(grant.status).toBe(200);
      const me = await call(app.url, '/auth/user', { headers: { authorization: `Bearer ${grant.body.access_token}` } });
      expect({ realm, status: me.status, userid: me.body.userid }).toEqual({
        realm,
        status: 200,
        userid: alice.userid,
      });
    }
  });
});

describe('the development client islet-dev', () => {
  it('exists in every realm outside production mode, production included', async () => {
    for (const realm of REALMS) expect((await devClientGrant(app.url, realm, app.devClientSecret)).status).toBe(200);
  });

  it('exists in no realm in production mode, not even when an earlier start stored it in the database', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'islet-production-'));
    const config = loadConfig({
      NODE_ENV: 'production',
      // Required in production; this test sends no mail.
      SMTP_URL: 'smtp://127.0.0.1:9',
      MAIL_FROM: 'Islet <no-reply@islet.test>',
      HOST: '127.0.0.1',
      PORT: '0',
      DATABASE_URL: app.database.url,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      SERVER_SECRET,
      DATABASE_POOL_SIZE: '2',
      PASSWORD_CHECKS_PER_SECOND: '1000',
    });
    const production = await startService(config, createLogger('silent'));
    try {
      for (const realm of REALMS) {
        const grant = await devClientGrant(production.url, realm, app.devClientSecret);
        expect({ realm, status: grant.status, error: grant.body.error }).toEqual({
          realm,
          status: 401,
          error: 'invalid_client',
        });
      }
    } finally {
      await production.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
