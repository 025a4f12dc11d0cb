import { afterAll, beforeAll, describe, it } from '@jest/globals';
import fc from 'fast-check';
import { fuzzEach, fuzzTimeout, Fuzzer } from '../support/fuzz/harness';
import {
  MULTIPART_TARGETS,
  multipartCaseArbitrary,
  multipartExchange,
  type MultipartCase,
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

/** Counterexamples the fuzzing found, kept as fixed cases held to the same properties. */
describe('counterexamples', () => {
  function fixedCase(targetName: string, fuzz: Partial<MultipartCase>): Promise<void> {
    const target = MULTIPART_TARGETS.find((candidate) => candidate.name === targetName)!;
    const fixed: MultipartCase = {
      caller: 'anonymous',
      bearer: false,
      parts: [],
      declared: 'boundary',
      newline: '\r\n',
      closing: true,
      ...fuzz,
    };
    return fuzzer.check(() => multipartExchange(fuzzer, target, fixed));
  }

  const file = (name: string) =>
    ({ kind: 'file', name, filename: 'f.bin', type: 'text/plain', content: new Uint8Array() }) as const;

  // The second part of one name was never read: the body never ended and the request hung.
  it('answers a body that sends one file twice and another never', () => {
    const target = MULTIPART_TARGETS.find((candidate) => candidate.name === 'two createBlob with a file each')!;
    const operations = JSON.stringify({
      query: target.document,
      variables: { userId: fuzzer.world.accounts.owner.userid, first: null, second: null },
    });
    const map = JSON.stringify({ 0: ['variables.first'], 1: ['variables.second'] });
    return fixedCase(target.name, {
      parts: [
        { kind: 'field', name: 'operations', value: operations },
        { kind: 'field', name: 'map', value: map },
        file('1'),
        file('1'),
      ],
    });
  });
});
