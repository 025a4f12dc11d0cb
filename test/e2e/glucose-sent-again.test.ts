import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { signUp, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { call, graphql } from '../support/http';

/**
 * A record sent again with its id and time is dropped as a copy, whatever its dataset's
 * deduplicator, as the readings' primary key (user, time, id) refused it before
 * (dropCopies, reading-upload.repository.ts): reads order and page by (time, id), and two
 * readings of one (time, id) would read back twice, or once when a page ends between them.
 */
let app: TestApp;
let owner: TestAccount;

const START = Date.UTC(2024, 5, 1, 8);
interface Sent {
  type: string;
  time: string;
  value: number;
  units: string;
  id: string;
}
/** Six readings five minutes apart, each with its id. */
const RECORDS = Array.from({ length: 6 }, (_, index): Sent => ({
  type: 'cbg',
  time: new Date(START + index * 300_000).toISOString(),
  value: 100 + index,
  units: 'mg/dL',
  id: `${index}`.repeat(32),
}));
const [first, second, third, fourth, fifth, sixth] = RECORDS as [Sent, Sent, Sent, Sent, Sent, Sent];

async function openDataset(deduplicator: string): Promise<string> {
  const opened = await call(app.url, `/v1/users/${owner.userid}/datasets`, {
    token: owner.token,
    json: { deduplicator: { name: `org.tidepool.deduplicator.${deduplicator}` } },
  });
  expect(opened.status).toBe(201);
  return opened.body.data.id;
}

/** Uploads `records` through GraphQL's addDatasetData (a multipart file); answers how many it stored. */
async function upload(datasetId: string, records: object[]): Promise<number> {
  const form = new FormData();
  form.append(
    'operations',
    JSON.stringify({
      query: `mutation ($datasetId: ID!, $records: Upload!) { addDatasetData(input: { datasetId: $datasetId, records: $records }) { stored } }`,
      variables: { datasetId, records: null },
    }),
  );
  form.append('map', JSON.stringify({ records: ['variables.records'] }));
  form.append('records', new Blob([JSON.stringify(records)], { type: 'application/json' }), 'records.json');
  const response = await fetch(`${app.url}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${owner.token}`, 'apollo-require-preflight': 'true' },
    body: form,
  });
  const reply = (await response.json()) as { data?: { addDatasetData: { stored: number } }; errors?: unknown };
  expect(reply.errors).toBeUndefined();
  return reply.data!.addDatasetData.stored;
}

const close = async (datasetId: string) =>
  expect(
    (await call(app.url, `/v1/datasets/${datasetId}`, { method: 'PUT', token: owner.token, json: {} })).status,
  ).toBe(200);

/** The readings' connection read three at a time: its total count and every page's nodes. */
async function pagedReadings(): Promise<{ totalCount: number; ids: string[] }> {
  const query = `query ($id: ID!, $after: String) { user(id: $id) {
    glucoseReadings(filter: { from: "2024-06-01T00:00:00Z", to: "2024-06-02T00:00:00Z" }, first: 3, after: $after) {
      totalCount nodes { id } pageInfo { hasNextPage endCursor } } } }`;
  const ids: string[] = [];
  let after: string | null = null;
  for (;;) {
    const reply = await graphql(app.url, query, { id: owner.userid, after }, owner.token);
    expect(reply.body.errors).toBeUndefined();
    const page = reply.body.data.user.glucoseReadings;
    ids.push(...page.nodes.map((node: { id: string }) => node.id));
    if (!page.pageInfo.hasNextPage) return { totalCount: page.totalCount, ids };
    after = page.pageInfo.endCursor;
  }
}

beforeAll(async () => {
  app = await startTestApp();
  owner = await signUp(app, 'sent-again');
});
afterAll(async () => {
  await app?.stop();
});

describe('a record sent again with its id and time', () => {
  it('is stored once, in its dataset or another, sent in another upload or twice in one', async () => {
    const none = await openDataset('none');
    const stored = [await upload(none, [first, second, third])];
    // The third again, where a page of three ends: the copy would start the next page.
    stored.push(await upload(none, [third, fourth]));
    stored.push(await upload(none, [fifth, sixth, sixth]));
    // Another dataset's copies, open or closed, whatever their deduplicator keys on.
    const open = await openDataset('none');
    stored.push(await upload(open, [first]));
    const hashed = await openDataset('dataset.drop.hash');
    stored.push(await upload(hashed, [{ ...fourth, value: 180 }]));
    await close(hashed);
    await close(none);

    const read = await call(app.url, `/data/${owner.userid}`, { token: owner.token });
    expect(read.status).toBe(200);
    // What each upload answered, what /data reads back (id and mg/dL) and what the pages hold agree.
    expect({
      stored,
      read: read.body.map(({ id, value }: { id: string; value: number }) => [id, Math.round(value * 18.01559)]),
      paged: await pagedReadings(),
    }).toEqual({
      stored: [3, 1, 2, 0, 0],
      read: RECORDS.map(({ id, value }) => [id, value]),
      paged: { totalCount: 6, ids: RECORDS.map(({ id }) => id) },
    });
  });

  it('is one reading when one upload sends an id and the hex digest it is stored under', async () => {
    // A day the account holds nothing of, so the upload's span has no reading but its own.
    const time = new Date(START + 10 * 86_400_000).toISOString();
    const textId = 'z'.repeat(32);
    const storedUnder = createHash('md5').update(textId).digest('hex');
    const records = [textId, storedUnder].map((id, index) => ({
      type: 'cbg',
      time,
      value: 120 + index,
      units: 'mg/dL',
      id,
    }));
    const datasetId = await openDataset('none');
    expect(await upload(datasetId, records)).toBe(1);
    await close(datasetId);
    const read = await call(app.url, `/data/${owner.userid}?startDate=${time}&endDate=${time}`, { token: owner.token });
    expect(read.status).toBe(200);
    expect(read.body).toHaveLength(1);
  });
});
