import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestApp, type TestApp } from '../support/app';
import { eventually } from '../support/eventually';
import { call } from '../support/http';

let app: TestApp;
const lines: Record<string, any>[] = [];

beforeAll(async () => {
  app = await startTestApp({ LOG_LEVEL: 'info' }, { logTo: (line) => lines.push(JSON.parse(line)) });
});
afterAll(async () => {
  await app?.stop();
});

/** The log lines of one request, once its access line ("request") is written. */
async function linesOf(requestId: string): Promise<Record<string, any>[]> {
  const logged = async () => lines.some((line) => line.requestId === requestId && line.msg === 'request');
  await eventually(logged, `the access log line of request ${requestId} is written`, 5_000);
  return lines.filter((line) => line.requestId === requestId);
}

describe('access log', () => {
  it.each([
    ['POST', '/graphql', '/graphql', { json: { query: '{ __typename }' } }],
    ['GET', '/realms/dev1/.well-known/openid-configuration', '/realms/dev1/.well-known/openid-configuration', {}],
    ['GET', '/auth/user?secret=hunter2', '/auth/user', {}],
    ['GET', '/no/such/thing?token=hunter2', '/no/such/thing', {}],
  ])('logs %s %s with the full path the client sent, without its query', async (method, path, logged, options) => {
    const requestId = `log-${Math.random().toString(36).slice(2)}`;
    await call(app.url, path, { method, headers: { 'x-request-id': requestId }, ...options });
    const [access] = (await linesOf(requestId)).filter((line) => line.msg === 'request');
    expect(access).toMatchObject({ level: 'info', requestId, method, path: logged, status: expect.any(Number) });
    expect(JSON.stringify(access)).not.toMatch(/hunter2/);
  });

  it('names the request on every line written while serving it', async () => {
    const requestId = `log-${Math.random().toString(36).slice(2)}`;
    const reply = await call(app.url, '/realms/qa1/protocol/openid-connect/token', {
      headers: { 'x-request-id': requestId },
      form: {
        grant_type: 'password',
        client_id: 'islet-dev',
        client_secret: app.devClientSecret,
        username: 'nobody@example.org',
        password: 'not-the-password',
      },
    });
    expect(reply.status).toBe(400);
    const ofRequest = await linesOf(requestId);
    expect(ofRequest.map((line) => line.msg)).toEqual(['token request refused', 'request']);
    expect(ofRequest[1]).toMatchObject({ path: '/realms/qa1/protocol/openid-connect/token', status: 400 });
    const unnamed = lines.filter((line) => line.msg === 'token request refused' && line.requestId === undefined);
    expect(unnamed).toEqual([]);
  });
});
