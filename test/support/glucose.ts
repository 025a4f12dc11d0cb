import { expect } from '@jest/globals';
import type { TestApp } from './app';
import { call } from './http';

/** A Tidepool CGM record (`cbg`) at `time` (epoch ms) of `mgdl`, five-minute sampling, as uploaders send it. */
export const cbg = (time: number, mgdl: number) => ({
  type: 'cbg',
  time: new Date(time).toISOString(),
  value: mgdl,
  units: 'mg/dL',
  sampleInterval: 300000,
});

/** Opens a continuous dataset of `userId` and uploads `records` into it in one request, as an uploader does. */
export async function uploadReadings(app: Pick<TestApp, 'url'>, userId: string, token: string, records: object[]) {
  const opened = await call(app.url, `/v1/users/${userId}/datasets`, { token, json: { dataSetType: 'continuous' } });
  const uploaded = await call(app.url, `/v1/datasets/${opened.body.data.id}/data`, {
    method: 'POST',
    token,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(records),
  });
  expect(uploaded.status).toBe(200);
}

/**
 * Opens a dataset of `owner` with `dataset`'s fields (201), uploads each batch of records into it
 * (200 each) and, when `close`, closes it; answers its id.
 */
export async function uploadDataset(
  app: Pick<TestApp, 'url'>,
  owner: { userid: string; token: string },
  dataset: object,
  batches: object[][],
  close: boolean,
): Promise<string> {
  const opened = await call(app.url, `/v1/users/${owner.userid}/datasets`, { token: owner.token, json: dataset });
  expect(opened.status).toBe(201);
  const id: string = opened.body.data.id;
  for (const records of batches) {
    const added = await call(app.url, `/v1/datasets/${id}/data`, {
      method: 'POST',
      token: owner.token,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(records),
    });
    expect(added.status).toBe(200);
  }
  if (close)
    expect((await call(app.url, `/v1/datasets/${id}`, { method: 'PUT', token: owner.token, json: {} })).status).toBe(
      200,
    );
  return id;
}
