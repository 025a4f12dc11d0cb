import { performance } from 'node:perf_hooks';
import { percentile } from '../bench/drive';

/**
 * How a request ended. `down`: no answer (connection refused or reset: the service was not
 * running); `unavailable`: a 503 with Retry-After (or GraphQL's UNAVAILABLE), what a dependency
 * outage must produce; `failure`: anything else that is not the expected answer (a 500, a 503
 * without Retry-After, an unexpected 4xx, content that differs from what was written).
 */
export type Kind = 'ok' | 'down' | 'unavailable' | 'failure';

export class RequestFailed extends Error {
  constructor(
    readonly kind: Exclude<Kind, 'ok'>,
    readonly detail: string,
  ) {
    super(`${kind}: ${detail}`);
  }
}

export interface Outcome {
  operation: string;
  kind: Kind;
  detail?: string;
  /** Milliseconds since the soak began. */
  start: number;
  end: number;
}

/** A fault the soak caused (a restart, the database cut), from its start until the service answers again. */
export interface FaultWindow {
  label: string;
  start: number;
  end: number;
  /** What the fault's own steps measured (how long the service took to exit, to be ready again). */
  note?: string;
}

/** After a fault ends, requests may still meet its traces this long (a pool reconnecting, a retry-after). */
const GRACE_MS = 5_000;

export class Tally {
  readonly outcomes: Outcome[] = [];
  readonly faults: FaultWindow[] = [];
  private readonly origin = performance.now();

  now(): number {
    return performance.now() - this.origin;
  }

  record(operation: string, kind: Kind, start: number, detail?: string): void {
    this.outcomes.push({ operation, kind, start, end: this.now(), detail });
  }

  /** Runs `fault` (which resolves once the service answers again, with a note) as a fault window. */
  async fault(label: string, fault: () => Promise<string | void>): Promise<void> {
    const start = this.now();
    let note: string | void = undefined;
    try {
      note = await fault();
    } finally {
      this.faults.push({ label, start, end: this.now(), note: note ?? undefined });
    }
  }

  /** Whether the request overlapped a fault window (or its grace). */
  duringFault(outcome: Outcome): boolean {
    return this.faults.some((fault) => outcome.start <= fault.end + GRACE_MS && outcome.end >= fault.start);
  }

  /** Errors that are not the answers an outage gives, or such answers outside every fault window. */
  unexpected(): Outcome[] {
    return this.outcomes.filter(
      (outcome) => outcome.kind === 'failure' || (outcome.kind !== 'ok' && !this.duringFault(outcome)),
    );
  }
}

/** Request counts, errors by kind and latency percentiles (of the answered requests) of some outcomes. */
export function summarise(outcomes: readonly Outcome[]) {
  const counts: Record<Kind, number> = { ok: 0, down: 0, unavailable: 0, failure: 0 };
  const latencies: number[] = [];
  for (const outcome of outcomes) {
    counts[outcome.kind] += 1;
    if (outcome.kind === 'ok') latencies.push(outcome.end - outcome.start);
  }
  latencies.sort((a, b) => a - b);
  return { requests: outcomes.length, ...counts, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99) };
}

export interface Answer {
  status: number;
  headers: Headers;
  body: Buffer;
}

/** A request that hangs this long is a failure: every answer, even an outage's, must come promptly. */
const REQUEST_TIMEOUT_MS = 60_000;

/**
 * Sends a request and returns the answer when its status is `expected`; otherwise throws a
 * RequestFailed of the kind the answer is.
 */
export async function send(url: string, init: RequestInit, expected: number): Promise<Answer> {
  let response: Response;
  let body: Buffer;
  try {
    response = await fetch(url, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    body = Buffer.from(await response.arrayBuffer());
  } catch (error) {
    if ((error as Error).name === 'TimeoutError') throw new RequestFailed('failure', `no answer within 60 s: ${url}`);
    const cause = (error as { cause?: { code?: string } }).cause;
    throw new RequestFailed('down', cause?.code ?? (error as Error).message);
  }
  if (response.status === 503) {
    if (response.headers.get('retry-after')) throw new RequestFailed('unavailable', '503');
    throw new RequestFailed('failure', `503 without Retry-After: ${body.toString().slice(0, 200)}`);
  }
  if (response.status !== expected)
    throw new RequestFailed(
      'failure',
      `${init.method ?? 'GET'} ${url} answered ${response.status}: ${body.toString().slice(0, 300)}`,
    );
  return { status: response.status, headers: response.headers, body };
}

export function json<T>(answer: Answer): T {
  return JSON.parse(answer.body.toString()) as T;
}

/** A GraphQL operation's data; its errors throw (UNAVAILABLE ones as an outage's answer). */
export async function graphql<T>(
  baseUrl: string,
  credentials: Record<string, string>,
  query: string,
  variables = {},
): Promise<T> {
  const answer = await send(
    `${baseUrl}/graphql`,
    {
      method: 'POST',
      headers: { ...credentials, 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    },
    200,
  );
  const { data, errors } = json<{ data: T; errors?: { message: string; extensions?: { code?: string } }[] }>(answer);
  if (errors?.length) {
    if (errors.every((error) => error.extensions?.code === 'UNAVAILABLE'))
      throw new RequestFailed('unavailable', 'GraphQL UNAVAILABLE');
    throw new RequestFailed('failure', `GraphQL: ${JSON.stringify(errors).slice(0, 300)}`);
  }
  return data;
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
