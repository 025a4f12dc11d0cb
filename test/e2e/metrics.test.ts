import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { getIntrospectionQuery } from 'graphql';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { passwordGrant, signUp, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { uploadBlob } from '../support/content';
import { eventually } from '../support/eventually';
import { call, graphql } from '../support/http';

/**
 * GET /metrics scraped before and after a few requests, parsed with a Prometheus text parser:
 * each counter moves by exactly what the requests did. The registry is per process, and jest
 * gives each test file its own modules, so nothing else in this file's process touches it.
 */
let app: TestApp;
let account: TestAccount;

type Family = ReturnType<typeof parsePrometheusTextFormat>[number];

async function scrape(): Promise<Map<string, Family>> {
  const reply = await fetch(`${app.url}/metrics`);
  expect(reply.status).toBe(200);
  expect(reply.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  const families = parsePrometheusTextFormat(await reply.text());
  return new Map(families.map((family) => [family.name, family]));
}

/** The value of `name`'s sample with exactly `labels` (a counter, gauge, or a histogram's count). */
function valueOf(metrics: Map<string, Family>, name: string, labels: Record<string, string> = {}): number {
  const sample = metrics
    .get(name)
    ?.metrics.find(
      (candidate) =>
        Object.keys(candidate.labels ?? {}).length === Object.keys(labels).length &&
        Object.entries(labels).every(([key, value]) => candidate.labels?.[key] === value),
    );
  return Number(sample?.value ?? sample?.count ?? 0);
}

beforeAll(async () => {
  app = await startTestApp();
  account = await signUp(app, 'metered');
});
afterAll(async () => {
  await app?.stop();
});

describe('GET /metrics', () => {
  it('counts HTTP requests by route template, method and status, never by raw path', async () => {
    const before = await scrape();
    for (let index = 0; index < 3; index += 1)
      expect((await call(app.url, `/v1/users/${account.userid}/blobs`, { token: account.token })).status).toBe(200);
    expect((await call(app.url, '/no/such/path')).status).toBe(404);
    const after = await scrape();
    const profile = { route: '/v1/users/:userId/blobs', method: 'GET', status: '200' };
    expect(valueOf(after, 'islet_http_requests_total', profile)).toBe(
      valueOf(before, 'islet_http_requests_total', profile) + 3,
    );
    const unmatched = { route: 'unmatched', method: 'GET', status: '404' };
    expect(valueOf(after, 'islet_http_requests_total', unmatched)).toBe(
      valueOf(before, 'islet_http_requests_total', unmatched) + 1,
    );
    const routes = after.get('islet_http_requests_total')!.metrics.map((sample) => sample.labels!.route);
    expect(routes.some((route) => route.includes(account.userid))).toBe(false);
    expect(after.get('islet_http_request_duration_seconds')?.type).toBe('HISTOGRAM');
  });

  it('counts GraphQL operations by name and outcome', async () => {
    const before = await scrape();
    await graphql(app.url, 'query Me { me { userId } }', {}, account.token);
    await graphql(app.url, 'query Me { me { userId } }', {}, account.token);
    const broken = await graphql(app.url, 'query Broken { dataset(id: "nope") { id } }', {}, account.token);
    expect(broken.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    const after = await scrape();
    const moved = (labels: Record<string, string>) =>
      valueOf(after, 'islet_graphql_operations_total', labels) -
      valueOf(before, 'islet_graphql_operations_total', labels);
    expect(moved({ operation: 'Me', type: 'query', outcome: 'ok' })).toBe(2);
    const graphqlRoute = { route: '/graphql', method: 'POST', status: '200' };
    expect(valueOf(after, 'islet_http_requests_total', graphqlRoute)).toBe(
      valueOf(before, 'islet_http_requests_total', graphqlRoute) + 3,
    );
    expect(moved({ operation: 'Broken', type: 'query', outcome: 'error' })).toBe(1);
  });

  it('counts the introspection GraphQL tools send as an operation that went well, signed in or not', async () => {
    const before = await scrape();
    for (const token of [undefined, account.token])
      expect((await graphql(app.url, getIntrospectionQuery(), {}, token)).body.errors).toBeUndefined();
    const after = await scrape();
    const moved = (outcome: string) =>
      valueOf(after, 'islet_graphql_operations_total', { operation: 'IntrospectionQuery', type: 'query', outcome }) -
      valueOf(before, 'islet_graphql_operations_total', { operation: 'IntrospectionQuery', type: 'query', outcome });
    expect({ ok: moved('ok'), error: moved('error') }).toEqual({ ok: 2, error: 0 });
  });

  it('counts token grants by realm, grant type and outcome', async () => {
    const before = await scrape();
    expect((await passwordGrant(app, 'dev1', account.email, account.password)).status).toBe(200);
    expect((await passwordGrant(app, 'dev1', account.email, 'wrong-password')).status).toBe(400);
    const after = await scrape();
    const moved = (outcome: string) =>
      valueOf(after, 'islet_token_grants_total', { realm: 'dev1', grant_type: 'password', outcome }) -
      valueOf(before, 'islet_token_grants_total', { realm: 'dev1', grant_type: 'password', outcome });
    expect(moved('success')).toBe(1);
    expect(moved('invalid_grant')).toBe(1);
    const tokenRoute = { route: '/realms/:realm/protocol/openid-connect/token', method: 'POST', status: '200' };
    expect(valueOf(after, 'islet_http_requests_total', tokenRoute)).toBe(
      valueOf(before, 'islet_http_requests_total', tokenRoute) + 1,
    );
  });

  it('counts object-store calls and the bytes written and read', async () => {
    const before = await scrape();
    const body = randomBytes(12_345);
    const created = await uploadBlob(app, account.userid, account.token, body);
    expect(created.status).toBe(201);
    const read = await call(app.url, `/v1/blobs/${created.body.id}/content`, { token: account.token });
    expect(read.status).toBe(200);
    const after = await scrape();
    const moved = (name: string, labels: Record<string, string>) =>
      valueOf(after, name, labels) - valueOf(before, name, labels);
    expect(moved('islet_object_store_bytes_total', { direction: 'in' })).toBe(12_345);
    expect(moved('islet_object_store_bytes_total', { direction: 'out' })).toBe(12_345);
    expect(moved('islet_object_store_calls_total', { operation: 'put', outcome: 'ok' })).toBe(1);
    expect(moved('islet_object_store_calls_total', { operation: 'get', outcome: 'ok' })).toBe(1);
  });

  it('counts glucose readings ingested and the lag of the summaries they update', async () => {
    const before = await scrape();
    const opened = await call(app.url, `/v1/users/${account.userid}/datasets`, {
      token: account.token,
      json: { dataSetType: 'continuous' },
    });
    const newest = Math.floor(Date.now() / 300_000) * 300_000;
    const records = Array.from({ length: 5 }, (_, index) => ({
      type: 'cbg',
      time: new Date(newest - index * 300_000).toISOString(),
      value: 120 + index,
      units: 'mg/dL',
    }));
    const added = await call(app.url, `/v1/datasets/${opened.body.data.id}/data`, {
      token: account.token,
      json: records,
    });
    expect(added.status).toBe(200);
    await eventually(
      async () =>
        valueOf(await scrape(), 'islet_glucose_summary_lag_seconds') >
        valueOf(before, 'islet_glucose_summary_lag_seconds'),
      'the summary is updated',
    );
    const after = await scrape();
    expect(valueOf(after, 'islet_glucose_readings_ingested_total')).toBe(
      valueOf(before, 'islet_glucose_readings_ingested_total') + 5,
    );
  });

  it('shows the database pool and the process, event loop included', async () => {
    const metrics = await scrape();
    expect(valueOf(metrics, 'islet_database_pool_connections', { state: 'total' })).toBeGreaterThan(0);
    expect(valueOf(metrics, 'islet_database_pool_connections', { state: 'waiting' })).toBe(0);
    expect(metrics.has('islet_process_cpu_user_seconds_total')).toBe(true);
    expect(metrics.has('islet_nodejs_eventloop_lag_seconds')).toBe(true);
  });
});

describe('METRICS_PORT', () => {
  it('serves /metrics on its own port only, not on the public one', async () => {
    const separate = await startTestApp({ METRICS_PORT: '0' });
    try {
      expect((await call(separate.url, '/metrics')).status).toBe(404);
      const scraped = await fetch(separate.service.metricsUrl!);
      expect(scraped.status).toBe(200);
      expect(await scraped.text()).toMatch(/^# HELP islet_/m);
      expect(new URL(separate.service.metricsUrl!).port).not.toBe(new URL(separate.url).port);
    } finally {
      await separate.stop();
    }
  });
});
