import path from 'node:path';
import testSequencer from '@jest/test-sequencer';

/**
 * Longest files first, so that no long file starts near the end while the other worker idles.
 * Jest orders by the durations its cache remembers, but a fresh clone (CI) has no cache and jest
 * then orders by file size, which put npm-build.test.ts (36 s, a small file) last. A file jest
 * has not timed takes its duration from SLOWEST below, else a guess by its kind.
 */
const SLOWEST = {
  // Seconds on the 2-core CI machine, full suite, 2026-11-27; order is all that matters.
  'test/e2e/content-consistency.test.ts': 89,
  'test/e2e/many-instances.test.ts': 88,
  'test/browser/playground.test.ts': 76,
  'test/contract/object-store.test.ts': 40,
  'test/e2e/access-matrix.test.ts': 40,
  'test/e2e/seed.test.ts': 39,
  'test/e2e/npm-build.test.ts': 36,
  'test/browser/docs.test.ts': 35,
  'test/e2e/password-budget.test.ts': 30,
  'test/fuzz/rest.fuzz.test.ts': 30,
  'test/fuzz/multipart.fuzz.test.ts': 27,
  'src/domains/clinics/patient-list-sql.test.ts': 26,
  'test/browser/password-reset.test.ts': 26,
  'test/browser/login.test.ts': 25,
  'test/e2e/blobs.test.ts': 23,
  'test/e2e/oidc-protections.test.ts': 23,
  'test/fuzz/graphql.fuzz.test.ts': 20,
  'test/e2e/graphql-examples.test.ts': 20,
};

/** End-to-end, browser and fuzz files start the service (a few seconds); the rest take about one. */
const guess = (relative) => (/^test\/(e2e|browser|fuzz|contract)\//.test(relative) ? 8 : 1);

// A CommonJS module: its class is `default` on module.exports.
const Sequencer = testSequencer.default ?? testSequencer;

export default class LongestFirst extends Sequencer {
  time(test) {
    const relative = path.relative(test.context.config.rootDir, test.path).split(path.sep).join('/');
    return super.time(test) ?? (SLOWEST[relative] ?? guess(relative)) * 1000;
  }
}
