import pg from 'pg';
import type { Logger } from '../logger';

const RECONNECT_MS = 1000;

type Listener = (payload: string) => void;

/**
 * PostgreSQL LISTEN/NOTIFY on one dedicated connection: how instances tell each other that a
 * session was revoked or keys rotated. After a lost connection it reconnects and calls every
 * `onConnect` again, so subscribers reload whatever they may have missed.
 */
export class DatabaseEvents {
  private readonly listeners = new Map<string, Listener[]>();
  private readonly connectHooks: (() => Promise<void>)[] = [];
  private client: pg.Client | undefined;
  private closed = false;

  constructor(
    private readonly databaseUrl: string,
    private readonly logger: Logger,
  ) {}

  on(channel: string, listener: Listener): void {
    if (!/^[a-z_]+$/.test(channel)) throw new Error(`invalid channel name ${channel}`);
    this.listeners.set(channel, [...(this.listeners.get(channel) ?? []), listener]);
  }

  /** Runs after every (re)connection, once LISTEN is in place. */
  onConnect(hook: () => Promise<void>): void {
    this.connectHooks.push(hook);
  }

  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.databaseUrl });
    client.on('notification', (message) => {
      for (const listener of this.listeners.get(message.channel) ?? []) listener(message.payload ?? '');
    });
    client.on('error', (error) => {
      if (this.closed) return;
      this.logger.warn({ err: error }, 'database event listener lost its connection; reconnecting');
      void client.end().catch(() => undefined);
      this.scheduleReconnect();
    });
    await client.connect();
    for (const channel of this.listeners.keys()) await client.query(`listen ${channel}`);
    this.client = client;
    for (const hook of this.connectHooks) await hook();
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.client?.end().catch(() => undefined);
  }

  private scheduleReconnect(): void {
    if (this.closed) return;
    setTimeout(() => {
      // Closed meanwhile (the service shut down while the database was away): nothing to resume.
      if (this.closed) return;
      this.start().catch((error: unknown) => {
        this.logger.warn({ err: error }, 'database event listener could not reconnect');
        this.scheduleReconnect();
      });
    }, RECONNECT_MS).unref();
  }
}
