import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startupBanner } from '../../src/main';
import { startTestApp, type TestApp } from '../support/app';
import { call } from '../support/http';

let app: TestApp;

beforeAll(async () => {
  // No secrets configured: the service generates them, as on a fresh clone.
  app = await startTestApp({ DEV_CLIENT_SECRET: '', SERVER_SECRET: '' });
});
afterAll(async () => {
  await app?.stop();
});

const banner = () => startupBanner(app.config, app.service).join('\n');

describe('start-up banner', () => {
  it('prints generated secrets on the start that generates them, afterwards only where they are kept', async () => {
    const kept = path.join(app.config.dataDir, 'secrets.json');
    const stored = JSON.parse(fs.readFileSync(kept, 'utf8'));
    const first = banner();
    expect(first).toContain(`Islet listening on ${app.url}`);
    expect(first).toContain(`client_id=islet-dev client_secret=${stored.devClientSecret}`);
    expect(first).toContain(stored.serverSecret);
    const printed = await call(app.url, '/realms/dev1/protocol/openid-connect/token', {
      form: { grant_type: 'client_credentials', client_id: 'islet-dev', client_secret: stored.devClientSecret },
    });
    expect(printed.status).toBe(200);

    await app.restart();
    const later = banner();
    expect(later).toContain(`Islet listening on ${app.url}`);
    expect(later).toContain(`client_id=islet-dev client_secret kept in ${kept}`);
    expect(later).not.toContain(stored.devClientSecret);
    expect(later).not.toContain(stored.serverSecret);
  });

  it('names DEV_CLIENT_SECRET, not the secret, when it is configured', async () => {
    const configured = { ...app.config, devClientSecret: 'configured-secret-0123456789' };
    const service = {
      ...app.service,
      secrets: { ...app.service.secrets, devClientSecret: configured.devClientSecret },
    };
    const lines = startupBanner(configured, service).join('\n');
    expect(lines).toContain('client_secret from DEV_CLIENT_SECRET');
    expect(lines).not.toContain('configured-secret-0123456789');
  });
});
