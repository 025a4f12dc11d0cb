import { liveClient, type LiveClient } from '../support/live';
import type { Account } from './accounts';
import type { Tally } from './outcomes';

const QUERY = `subscription ($userId: ID!) {
  glucoseSummaryUpdated(userId: $userId) { glucoseSummary(period: ONE_DAY) { cgm { dates { lastData } } } }
}`;

/** Between a lost connection and the next attempt. */
const RECONNECT_MS = 500;

/**
 * A clinic dashboard subscribed (graphql-ws) to one patient's summary updates. A restart closes
 * its connection; it connects again, as a dashboard would, until `stop`.
 */
export class SummaryWatch {
  /** When each update arrived (soak milliseconds). */
  readonly updates: number[] = [];
  connections = 0;
  private client: LiveClient | undefined;
  private stopped = false;
  private running: Promise<void> | undefined;

  constructor(
    private readonly baseUrl: string,
    private readonly viewer: Account,
    private readonly patientId: string,
    private readonly tally: Tally,
  ) {}

  start(): void {
    this.running = this.watch();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.client?.dispose();
    await this.running;
  }

  private async watch(): Promise<void> {
    while (!this.stopped) {
      try {
        this.client = liveClient(this.baseUrl, await this.viewer.accessToken());
        const subscription = this.client.subscribe(QUERY, { userId: this.patientId });
        this.connections += 1;
        for (;;) {
          const { errors } = await subscription.next();
          if (errors) {
            // Only an outage's UNAVAILABLE is an expected refusal; either ends this connection and a new one follows.
            const outage = errors.every((error) => error.extensions?.code === 'UNAVAILABLE');
            this.tally.record(
              'GraphQL subscription (refusals)',
              outage ? 'unavailable' : 'failure',
              this.tally.now(),
              JSON.stringify(errors),
            );
            break;
          }
          this.updates.push(this.tally.now());
        }
      } catch {
        // The connection closed or could not open (the service is restarting): connect again.
      } finally {
        await this.client?.dispose();
      }
      if (!this.stopped) await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS));
    }
  }
}
