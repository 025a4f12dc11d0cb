import fc from 'fast-check';
import { startTestApp, type TestApp } from '../app';
import { leakMarkers, leaksIn } from './leaks';
import { StateProbe, type Snapshot } from './snapshot';
import { buildWorld, legendOf, worldIsIntact, type World } from './world';

/**
 * How many cases each route or operation gets: few by default, so the fuzz suites stay inside
 * the CI budget; `FUZZ_RUNS=500` for a long run. `FUZZ_SEED` and `FUZZ_PATH` replay a failure
 * (fast-check prints both with the shrunk counterexample).
 */
function fuzzParameters<T>(defaultRuns: number): fc.Parameters<T> {
  const runs = Number(process.env.FUZZ_RUNS ?? defaultRuns);
  const seed = process.env.FUZZ_SEED;
  const path = process.env.FUZZ_PATH;
  return {
    numRuns: runs,
    ...(seed ? { seed: Number(seed) } : {}),
    ...(path ? { path, endOnFailure: true } : {}),
  };
}

/** Long values (a 40,000-character string) are cut in reports, which stay readable. */
const clipped = (text: string, max = 3_000) =>
  text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text;

/** Shrinking replays real requests: it stops after this long and reports the smallest case found so far. */
const SHRINK_BUDGET_MS = 20_000;

/**
 * Runs `property` for each named target (a route, an operation) that FUZZ_ONLY (a regular
 * expression) lets through, and throws once at the end with every target that failed, each with
 * fast-check's report (seed, path, shrunk counterexample) and the command that replays it.
 */
export async function fuzzEach<T>(
  suite: string,
  targets: readonly T[],
  nameOf: (target: T) => string,
  property: (target: T) => Promise<fc.IAsyncProperty<[unknown]>>,
  defaultRuns: number,
): Promise<void> {
  const only = process.env.FUZZ_ONLY ? new RegExp(process.env.FUZZ_ONLY) : undefined;
  const failures: string[] = [];
  for (const target of targets) {
    const name = nameOf(target);
    if (only && !only.test(name)) continue;
    const started = Date.now();
    const details = await fc.check(await property(target), {
      ...fuzzParameters(defaultRuns),
      interruptAfterTimeLimit: Number(process.env.FUZZ_RUNS ?? defaultRuns) * 2_000 + SHRINK_BUDGET_MS,
    });
    if (process.env.FUZZ_VERBOSE)
      process.stderr.write(
        `${name}: ${Date.now() - started} ms, ${details.numRuns} runs, ${details.numShrinks} shrinks${details.failed ? ', FAILED' : ''}\n`,
      );
    if (!details.failed) continue;
    const replay = `FUZZ_ONLY='^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$' FUZZ_SEED=${details.seed} FUZZ_PATH=${details.counterexamplePath}`;
    const error =
      details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
    failures.push(
      [
        name,
        `seed: ${details.seed}, path: ${details.counterexamplePath}, after ${details.numRuns} cases, shrunk ${details.numShrinks} times`,
        `counterexample: ${clipped(fc.stringify(details.counterexample))}`,
        `error: ${clipped(error)}`,
        `replay: ${replay} npm test -- ${suite}`,
      ].join('\n'),
    );
  }
  if (failures.length) throw new Error(`${failures.length} failed:\n\n${failures.join('\n\n')}`);
}

/** A jest timeout that grows with the number of cases (each is a few HTTP requests and queries). */
export const fuzzTimeout = (defaultRuns: number, targets: number) =>
  60_000 + Number(process.env.FUZZ_RUNS ?? defaultRuns) * targets * 1_000;

/** One request and its answer, as the properties see them. */
export interface Exchange {
  status: number;
  /** The answer's status, headers and body as text. */
  answer: string;
  /** Everything the request carried, as text. */
  request: string;
  /** A refusal must change nothing. */
  refused: boolean;
  /** Whether the operation may change state when it succeeds (not a read). */
  mutating: boolean;
  /** The status, or for GraphQL the first error's code: what the case's outcome was, to tally. */
  outcome: string;
  /** What the transport's own properties found wrong (error body, error codes). */
  problems: string[];
}

/** The service under fuzz, the world its cases name, and the properties every case must hold. */
export class Fuzzer {
  /** Whether the last case changed state, perhaps with work still running after its answer. */
  private lastChanged = true;
  /** Whether a case changed state since the world was last checked, and so may have taken part of it away. */
  private changedSinceCheck = false;

  private constructor(
    readonly app: TestApp,
    public world: World,
    private readonly probe: StateProbe,
    private readonly markers: ReturnType<typeof leakMarkers>,
  ) {}

  static async start(): Promise<Fuzzer> {
    const app = await startTestApp();
    const [world, probe] = await Promise.all([buildWorld(app), StateProbe.open(app)]);
    return new Fuzzer(app, world, probe, leakMarkers(app));
  }

  /** Builds a new world when a case that succeeded took part of it away (a logout, a deletion). */
  async ensureWorld(): Promise<World> {
    if (
      this.changedSinceCheck &&
      !(await worldIsIntact(this.app, this.world, (sql, values) => this.probe.query(sql, values)))
    )
      this.world = await buildWorld(this.app);
    this.changedSinceCheck = false;
    return this.world;
  }

  /** How many cases got each status (GraphQL: each first error code, or `ok`), for FUZZ_VERBOSE. */
  readonly outcomes = new Map<string, number>();

  /** Runs one case and throws, naming every property it broke, if it broke any. */
  async check(send: () => Promise<Exchange>): Promise<void> {
    const before: Snapshot = this.lastChanged ? await this.probe.settled() : await this.probe.take();
    const exchange = await send();
    this.outcomes.set(exchange.outcome, (this.outcomes.get(exchange.outcome) ?? 0) + 1);
    const problems = [...exchange.problems];
    if (exchange.status >= 500) problems.push(`answered ${exchange.status}`);
    for (const leak of leaksIn(this.markers, exchange.answer, exchange.request))
      problems.push(`the answer names ${leak}`);
    if (exchange.refused) {
      const changes = await this.probe.changesSince(before);
      if (changes.length) problems.push(`refused (${exchange.status}), yet changed ${changes.join(', ')}`);
    }
    this.lastChanged = exchange.mutating && !exchange.refused;
    this.changedSinceCheck ||= this.lastChanged;
    if (problems.length)
      throw new Error(
        `${problems.join('\n')}\nanswer: ${exchange.answer.slice(0, 1500)}\nworld: ${legendOf(this.world)}`,
      );
  }

  async stop(): Promise<void> {
    if (process.env.FUZZ_VERBOSE)
      process.stderr.write(`outcomes: ${JSON.stringify(Object.fromEntries([...this.outcomes].sort()))}\n`);
    await this.probe.close();
    await this.app.stop();
  }
}

/** The answer as text: status line, headers, body. */
export function answerText(status: number, headers: Headers, body: string): string {
  return `${status}\n${[...headers].map(([name, value]) => `${name}: ${value}`).join('\n')}\n\n${body}`;
}
