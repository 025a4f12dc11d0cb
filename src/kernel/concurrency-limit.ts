/**
 * Runs at most `max` tasks at once; the others wait their turn, first come first served. Meant
 * for work that occupies a shared resource while it runs (a thread of libuv's pool), so that
 * resource always keeps room for everything else.
 */
export class ConcurrencyLimit {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private max: number) {}

  get limit(): number {
    return this.max;
  }

  /** Changes the limit; tasks already running finish, waiting ones start as room appears. */
  resize(max: number): void {
    this.max = max;
    this.startWaiting();
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.max) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running += 1;
    try {
      return await task();
    } finally {
      this.running -= 1;
      this.startWaiting();
    }
  }

  private startWaiting(): void {
    while (this.running < this.max && this.waiting.length > 0) {
      this.running += 1;
      this.waiting.shift()!();
    }
  }
}
