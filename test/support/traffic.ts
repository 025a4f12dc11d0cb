import { createHash, randomBytes } from 'node:crypto';
import type { TestAccount } from './accounts';
import { cbg } from './glucose';

const FIVE_MINUTES = 5 * 60_000;
/** One hour of CGM readings per batch: well inside GLUCOSE_READINGS_PER_HOUR. */
const BATCH = 12;
const RETRYABLE = new Set([502, 503, 504]);
/**
 * Each loop rests this long between its steps. The restarts must happen under load, with requests
 * in flight, not under as much load as two cores can take: unpaced, the six loops kept the
 * instances busy for over a minute of CPU and slowed their own restarts and the rest of the suite.
 */
const PACE_MS = 25;

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** A write the service answered with success: it must be there afterwards, exactly. */
export type Acknowledged =
  | { kind: 'blob'; owner: TestAccount; id: string; sha256: string }
  | { kind: 'readings'; owner: TestAccount; times: string[] };

/** A write that failed: not acknowledged, so it may be absent, but never half there. */
export interface Unacknowledged {
  owner: TestAccount;
  times: string[];
}

export interface TrafficReport {
  acknowledged: Acknowledged[];
  unacknowledged: Unacknowledged[];
  /** Requests that failed, with the phases current when each began and when it failed, and what it answered. */
  failures: { phases: string[]; request: string; outcome: string }[];
  /** Idempotent reads that failed once and succeeded when the client sent them again. */
  retriedReads: number;
  requests: number;
  /** Requests answered with success, by the phase current when each began. */
  succeeded: Record<string, number>;
}

/**
 * Writers and readers through one address (a load balancer) until stopped: blobs with random
 * content and batches of readings into each writer's own dataset, and blob lists read back. A
 * read is idempotent, so the client sends it again once after a 502/503/504; a write is sent once.
 * A failure is tallied under the phases current when its request began and when it failed.
 */
export class Traffic {
  private phase = 'warm-up';
  private running = true;
  private hour = 0;
  private readonly loops: Promise<void>[];
  readonly report: TrafficReport = {
    acknowledged: [],
    unacknowledged: [],
    failures: [],
    retriedReads: 0,
    requests: 0,
    succeeded: {},
  };

  constructor(
    private readonly url: string,
    writers: { account: TestAccount; datasetId: string }[],
    readers: TestAccount[],
  ) {
    this.loops = [
      ...writers.map((writer) => this.loop(() => this.write(writer))),
      ...readers.map((reader) => this.loop(() => this.read(reader))),
    ];
  }

  enter(phase: string): void {
    this.phase = phase;
  }

  async stop(): Promise<TrafficReport> {
    this.running = false;
    await Promise.all(this.loops);
    return this.report;
  }

  private async loop(step: () => Promise<void>): Promise<void> {
    while (this.running) {
      await step();
      await new Promise((resolve) => setTimeout(resolve, PACE_MS));
    }
  }

  /** The response, or what kept it from coming (as text: fetch's errors come from another realm than jest's). */
  private async send(path: string, init: RequestInit): Promise<Response | string> {
    this.report.requests += 1;
    return fetch(`${this.url}${path}`, { ...init, signal: AbortSignal.timeout(20_000) }).catch(
      (error: { name: string; message: string; cause?: unknown }) =>
        `${error.name}: ${error.message} ${String(error.cause ?? '')}`,
    );
  }

  private succeed(phase: string): void {
    this.report.succeeded[phase] = (this.report.succeeded[phase] ?? 0) + 1;
  }

  private async fail(phase: string, request: string, outcome: Response | string): Promise<void> {
    const text =
      typeof outcome === 'string'
        ? outcome
        : `${outcome.status} ${(await outcome.text().catch(() => '')).slice(0, 200)}`;
    this.report.failures.push({ phases: [...new Set([phase, this.phase])], request, outcome: text });
  }

  private async write({ account, datasetId }: { account: TestAccount; datasetId: string }): Promise<void> {
    const phase = this.phase;
    const auth = { authorization: `Bearer ${account.token}` };
    const content = randomBytes(1024 + Math.floor(Math.random() * 16_384));
    const blob = await this.send(`/v1/users/${account.userid}/blobs`, {
      method: 'POST',
      headers: {
        ...auth,
        'content-type': 'application/octet-stream',
        digest: `md5=${createHash('md5').update(content).digest('base64')}`,
      },
      body: content,
    });
    if (typeof blob !== 'string' && blob.status === 201) {
      const { id } = (await blob.json()) as { id: string };
      this.report.acknowledged.push({ kind: 'blob', owner: account, id, sha256: sha256(content) });
      this.succeed(phase);
    } else await this.fail(phase, 'POST blob', blob);

    const start = Date.UTC(2026, 0, 1) + (this.hour += 1) * 12 * FIVE_MINUTES;
    const records = Array.from({ length: BATCH }, (_, index) => cbg(start + index * FIVE_MINUTES, 90 + index));
    const times = records.map((record) => record.time);
    const readings = await this.send(`/v1/datasets/${datasetId}/data`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify(records),
    });
    if (typeof readings !== 'string' && readings.status === 200) {
      await readings.arrayBuffer();
      this.report.acknowledged.push({ kind: 'readings', owner: account, times });
      this.succeed(phase);
    } else {
      await this.fail(phase, 'POST readings', readings);
      this.report.unacknowledged.push({ owner: account, times });
    }
  }

  private async read(account: TestAccount): Promise<void> {
    const phase = this.phase;
    const list = () =>
      this.send(`/v1/users/${account.userid}/blobs`, { headers: { authorization: `Bearer ${account.token}` } });
    let answer = await list();
    if (typeof answer === 'string' || RETRYABLE.has(answer.status)) {
      answer = await list();
      if (typeof answer !== 'string' && answer.ok) this.report.retriedReads += 1;
    }
    if (typeof answer === 'string' || !answer.ok) await this.fail(phase, 'GET blobs', answer);
    else {
      await answer.arrayBuffer();
      this.succeed(phase);
    }
  }
}
