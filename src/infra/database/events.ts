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
  private reconnection: NodeJS.Timeout | undefined;
  private closed = false;
  private heard = false;

  constructor(
    private readonly databaseUrl: string,
    private readonly logger: Logger,
  ) {}

  on(channel: string, listener: Listener): void {
    if (!/^[a-z_]+$/.test(channel)) throw new Error(`invalid channel name ${channel}`);
    this.listeners.set(channel, [...(this.listeners.get(channel) ?? []), listener]);
  }

  /**
   * Whether every notification sent now will be heard: the connection is up, LISTEN is in place
   * and the onConnect hooks have run. What is kept in memory on the strength of notifications
   * (cached rows) must not be trusted while this is false.
   */
  get listening(): boolean {
    return this.heard;
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
      void client.end().catch(() => undefined);
      // Only the connection in use reconnects; one lost while starting fails its start, whose caller retries.
      if (this.closed || client !== this.client) return;
      this.client = undefined;
      this.heard = false;
      this.logger.warn({ err: error }, 'database event listener lost its connection; reconnecting');
      this.scheduleReconnect();
    });
    await client.connect();
    // Closed while connecting (the service stopped during a reconnection): nothing to resume.
    if (this.closed) {
      await client.end();
      return;
    }
    // In use from here on, so that closing ends it even while the hooks below still run.
    this.client = client;
    try {
      for (const channel of this.listeners.keys()) await client.query(`listen ${channel}`);
      for (const hook of this.connectHooks) await hook();
      this.heard = this.client === client;
    } catch (error) {
      if (this.client === client) this.client = undefined;
      await client.end().catch(() => undefined);
      throw error;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.heard = false;
    clearTimeout(this.reconnection);
    await this.client?.end().catch(() => undefined);
  }

  /** Tries again in RECONNECT_MS, unless a try is already due. */
  private scheduleReconnect(): void {
    if (this.closed || this.reconnection) return;
    this.reconnection = setTimeout(() => {
      this.reconnection = undefined;
      this.start().catch((error: unknown) => {
        if (this.closed) return;
        this.logger.warn({ err: error }, 'database event listener could not reconnect');
        this.scheduleReconnect();
      });
    }, RECONNECT_MS).unref();
  }
}
