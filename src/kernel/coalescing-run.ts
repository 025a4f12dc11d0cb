/**
 * Background work that runs one pass at a time. A nudge while a pass runs makes it go round once
 * more afterwards instead of starting a second pass beside it, so bursts of nudges (commits,
 * notifications, sweeps) cost at most one extra pass. `onSettled` runs when a pass ends with
 * nothing more asked and the run is still open (e.g. to schedule the next look).
 */
export class CoalescingRun {
  private running: Promise<void> | undefined;
  private again = false;
  private closed = false;

  constructor(
    private readonly pass: () => Promise<void>,
    private readonly onError: (error: unknown) => void,
    private readonly onSettled: () => void = () => undefined,
  ) {}

  get isClosed(): boolean {
    return this.closed;
  }

  nudge(): void {
    if (this.closed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.pass()
      .catch(this.onError)
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.nudge();
        } else if (!this.closed) this.onSettled();
      });
  }

  /** Resolves when no pass runs (tests and shutdown wait for this). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** No pass starts after this; resolves when the one running has ended. */
  async close(): Promise<void> {
    this.closed = true;
    await this.idle();
  }
}
