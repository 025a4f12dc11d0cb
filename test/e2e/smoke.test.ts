import { afterAll, beforeAll, describe } from '@jest/globals';
import { startTestApp, type TestApp } from '../support/app';
import { smokeFlows } from '../support/smoke-flows';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.stop();
});

describe('smoke', () => smokeFlows(() => app));
