import path from 'node:path';
import testSequencer from '@jest/test-sequencer';

/**
 * Longest files first, so that no long file starts near the end while the other worker idles.
 * Jest orders by the durations its cache remembers, but a fresh clone (CI) has no cache and jest
 * then orders by file size, which put npm-build.test.ts (36 s, a small file) last. A file jest
 * has not timed takes its duration from SLOWEST below, else a guess by its kind.
 */
const SLOWEST = {
  // Seconds on the 2-core CI machine, full suite, 2026-11-28; order is all that matters.
  'test/browser/playground.test.ts': 84,
  'test/e2e/many-instances.test.ts': 73,
  'test/e2e/content-consistency.test.ts': 66,
  'test/e2e/access-matrix.test.ts': 39,
  'test/e2e/npm-build.test.ts': 36,
  'test/e2e/seed.test.ts': 33,
  'test/e2e/blobs.test.ts': 26,
  'test/e2e/oidc-protections.test.ts': 24,
  'test/contract/object-store.test.ts': 23,
  'test/browser/docs.test.ts': 22,
  'test/fuzz/rest.fuzz.test.ts': 21,
  'src/domains/clinics/patient-list-sql.test.ts': 21,
  'test/fuzz/graphql.fuzz.test.ts': 17,
  'test/browser/login.test.ts': 17,
  'test/e2e/legacy-paging.test.ts': 17,
  'test/e2e/glucose-rebuild-fairness.test.ts': 16,
  'test/e2e/password-budget.test.ts': 15,
  'test/fuzz/multipart.fuzz.test.ts': 13,
  'test/browser/password-reset.test.ts': 12,
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
