import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { announceSummaryChange } from './summary-feed';
import { updateSummary } from './summary-store';
import { nextOutdatedSummary } from './summaries.repository';
import { CoalescingRun } from '../../kernel/coalescing-run';
import { glucoseSummaryLag } from '../../infra/metrics';

/** How often outdated summaries are looked for besides the nudges uploads give (other instances' uploads). */
const SWEEP_MS = 5_000;

/**
 * Keeps summaries fresh: an upload that changes what counts nudges it after its commit, and a
 * sweep every few seconds catches what any instance left outdated. Each turn takes the summary
 * longest in the queue, in a transaction of its own, with SKIP LOCKED, so instances share the
 * work without waiting. A turn reads at most `readingsPerTurn` readings: a larger rebuild goes
 * on over several turns, each sending it to the back of the queue, so one account's rebuild
 * holds another's update up by one turn at most.
 */
export class SummaryUpdater {
  private timer: NodeJS.Timeout | undefined;
  private readonly run: CoalescingRun;

  constructor(
    private readonly em: () => EntityManager,
    private readonly logger: Logger,
    private readonly readingsPerTurn: number,
  ) {
    this.run = new CoalescingRun(
      () => this.drain(),
      (error) => this.logger.warn({ err: error }, 'glucose summary update failed; retried on the next sweep'),
    );
  }

  start(): void {
    this.timer = setInterval(() => this.nudge(), SWEEP_MS);
    this.timer.unref();
    this.nudge();
  }

  /** Updates every outdated summary soon; a nudge during a run makes the run go round once more. */
  nudge(): void {
    this.run.nudge();
  }

  /** Resolves when no update runs (tests and shutdown wait for this). */
  idle(): Promise<void> {
    return this.run.idle();
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.run.close();
  }

  private async drain(): Promise<void> {
    while (!this.run.isClosed && (await this.takeTurn())) {
      // One turn per transaction: short locks, and progress survives a failure of another.
    }
  }

  /** Answers whether there was a summary to work on. */
  private async takeTurn(): Promise<boolean> {
    return this.em().transactional(async (tx) => {
      const next = await nextOutdatedSummary(tx);
      if (!next) return false;
      const { userId, kind, outdatedSince } = next;
      if (!(await updateSummary(tx, userId, kind, { readings: this.readingsPerTurn }))) return true;
      if (outdatedSince) glucoseSummaryLag.observe((Date.now() - outdatedSince.getTime()) / 1000);
      await announceSummaryChange(tx, { userId, kind });
      return true;
    });
  }
}
