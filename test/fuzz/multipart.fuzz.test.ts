import { afterAll, beforeAll, it } from '@jest/globals';
import fc from 'fast-check';
import { fuzzEach, fuzzTimeout, Fuzzer } from '../support/fuzz/harness';
import {
  MULTIPART_TARGETS,
  multipartCaseArbitrary,
  multipartExchange,
  type MultipartTarget,
} from '../support/fuzz/multipart-cases';
import { idPools } from '../support/fuzz/world';

/**
 * Malformed GraphQL multipart bodies, from every kind of caller: no 5xx, errors in GraphQL's
 * format, a refusal changes nothing, no upload is left announced or half-written, and the service
 * still answers /healthz after each one (in the service, one unheard stream error ends the
 * process; here it fails the suite).
 */
const RUNS = 25;

let fuzzer: Fuzzer;

beforeAll(async () => {
  fuzzer = await Fuzzer.start();
}, 60_000);
afterAll(async () => {
  await fuzzer?.stop();
});

it(
  'holds the properties for every malformed multipart body generated',
  () =>
    fuzzEach(
      'test/fuzz/multipart',
      MULTIPART_TARGETS,
      (target: MultipartTarget) => target.name,
      async (target) => {
        const world = await fuzzer.ensureWorld();
        return fc.asyncProperty(multipartCaseArbitrary(target, idPools(world)), (fuzz) =>
          fuzzer.check(() => multipartExchange(fuzzer, target, fuzz)),
        );
      },
      RUNS,
    ),
  fuzzTimeout(RUNS, MULTIPART_TARGETS.length),
);
