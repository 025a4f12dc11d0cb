/**
 * The rule that decides where a read that tolerates a little staleness runs: on a streaming
 * replica that is up, current enough and has replayed the caller's last write, else on the
 * primary. Pure: the monitor (replicas.ts) feeds it what it measures; times are milliseconds on
 * one monotonic clock (performance.now()), positions are WAL positions (LSNs) as bigints.
 *
 * - The primary is sampled on a timer: (the time the sample was asked, pg_current_wal_lsn()).
 * - A replica's lag is now − the time of the newest primary sample it had replayed when last
 *   probed (pg_last_wal_replay_lsn()): everything the primary held at that time is on the
 *   replica, so its data is at most that old. Unlike pg_last_xact_replay_timestamp(), this does
 *   not grow while the primary is idle.
 * - Read-your-writes: after a caller's write commits (at time t), the caller's reads use a
 *   replica only once it has replayed the first primary sample asked after t, whose position
 *   is at or past the write's commit record. No extra statement per write.
 */

export interface PrimarySample {
  at: number;
  lsn: bigint;
}

/** What the last probe of a replica saw: its replay position, or that it did not answer. */
export interface ReplicaProbe {
  at: number;
  replayed: bigint | null;
}

/** Why a replica was not used for a read. */
export type SkipReason = 'down' | 'lagging' | 'behind_caller';

/** Where a read went, and why. */
export type Decision =
  | { target: 'replica'; replica: string; skipped: { replica: string; reason: SkipReason }[] }
  | { target: 'primary'; reason: PrimaryReason; skipped: { replica: string; reason: SkipReason }[] };

export type PrimaryReason = 'transaction' | 'wrote_in_request' | SkipReason;

export interface RoutingOptions {
  /** REPLICA_MAX_LAG_MS. */
  maxLagMs: number;
  /** A replica whose last answer is older than this is taken as down (the monitor stalled or it hangs). */
  probeFreshMs: number;
}

export class ReplicaRouting {
  private readonly samples: PrimarySample[] = [];
  private readonly probes = new Map<string, ReplicaProbe>();
  /** Failures seen while reading (after the last probe): down until a newer probe answers. */
  private readonly failedAt = new Map<string, number>();
  /** The time of each caller's last committed write, kept while it can still matter. */
  private readonly callerWrites = new Map<string, number>();
  private next = 0;

  constructor(
    readonly replicas: readonly string[],
    private readonly options: RoutingOptions,
  ) {}

  /** How long samples and callers' writes are kept: past that, a replica current enough has replayed them. */
  get memoryMs(): number {
    return this.options.maxLagMs + this.options.probeFreshMs + 1_000;
  }

  samplePrimary(sample: PrimarySample): void {
    this.samples.push(sample);
    while (this.samples.length > 1 && this.samples[0]!.at < sample.at - this.memoryMs) this.samples.shift();
    for (const [caller, at] of this.callerWrites) if (at < sample.at - this.memoryMs) this.callerWrites.delete(caller);
  }

  probed(replica: string, probe: ReplicaProbe): void {
    this.probes.set(replica, probe);
    if (probe.replayed !== null && (this.failedAt.get(replica) ?? Infinity) < probe.at) this.failedAt.delete(replica);
  }

  /** A read on the replica failed: skip it until a probe started later answers. */
  failed(replica: string, at: number): void {
    this.failedAt.set(replica, at);
  }

  wrote(caller: string, at: number): void {
    this.callerWrites.delete(caller);
    this.callerWrites.set(caller, at);
  }

  /** The replica's lag at `now` in ms; null when it is down (no fresh answer, or a failed read since). */
  lagMs(replica: string, now: number): number | null {
    const probe = this.probes.get(replica);
    if (!probe || probe.replayed === null || this.failedAt.has(replica)) return null;
    if (now - probe.at > this.options.probeFreshMs) return null;
    const replayed = this.newestReplayed(probe);
    return replayed ? now - replayed.at : Infinity;
  }

  /** Where a stale-tolerant read of `caller` runs at `now`. */
  choose(now: number, caller: string | null, { inTransaction = false, wroteInRequest = false } = {}): Decision {
    if (inTransaction) return { target: 'primary', reason: 'transaction', skipped: [] };
    if (wroteInRequest) return { target: 'primary', reason: 'wrote_in_request', skipped: [] };
    const needed = this.neededFor(caller);
    const skipped: { replica: string; reason: SkipReason }[] = [];
    const usable: string[] = [];
    for (const replica of this.replicas) {
      const reason = this.skipReason(replica, now, needed);
      if (reason) skipped.push({ replica, reason });
      else usable.push(replica);
    }
    if (!usable.length) return { target: 'primary', reason: worst(skipped), skipped };
    this.next = (this.next + 1) % usable.length;
    return { target: 'replica', replica: usable[this.next]!, skipped };
  }

  private skipReason(replica: string, now: number, needed: bigint | null | undefined): SkipReason | null {
    const lag = this.lagMs(replica, now);
    if (lag === null) return 'down';
    if (lag > this.options.maxLagMs) return 'lagging';
    if (needed === undefined) return null;
    if (needed === null || this.probes.get(replica)!.replayed! < needed) return 'behind_caller';
    return null;
  }

  /**
   * The position a replica must have replayed to serve `caller`: undefined when the caller has no
   * recent write; null when no primary sample has been asked since it (the caller waits for one).
   */
  private neededFor(caller: string | null): bigint | null | undefined {
    const wroteAt = caller === null ? undefined : this.callerWrites.get(caller);
    if (wroteAt === undefined) return undefined;
    return this.samples.find((sample) => sample.at > wroteAt)?.lsn ?? null;
  }

  /** The newest primary sample whose position the replica had replayed when probed. */
  private newestReplayed(probe: ReplicaProbe): PrimarySample | undefined {
    for (let index = this.samples.length - 1; index >= 0; index -= 1) {
      const sample = this.samples[index]!;
      if (sample.lsn <= probe.replayed!) return sample;
    }
    return undefined;
  }
}

/** The reason reported when every replica was skipped: the one most worth a look. */
function worst(skipped: readonly { reason: SkipReason }[]): SkipReason {
  for (const reason of ['down', 'lagging', 'behind_caller'] as const)
    if (skipped.some((skip) => skip.reason === reason)) return reason;
  return 'down';
}
