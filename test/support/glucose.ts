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
