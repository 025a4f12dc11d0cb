import { createClient, type Client, type FormattedExecutionResult } from 'graphql-ws';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import WebSocket from 'ws';

/** The close of a live connection: its code and reason. */
export interface Closed {
  code: number;
  reason: string;
}

export interface LiveClient {
  client: Client;
  /** Resolves when the server closes the connection. */
  closed: Promise<Closed>;
  /** Starts a subscription; `next()` waits for its next result. */
  subscribe(query: string, variables?: Record<string, unknown>): LiveSubscription;
  dispose(): Promise<void>;
}

export interface LiveSubscription {
  /** The next result; an operation the server refused comes back as a result with its errors. */
  next(): Promise<FormattedExecutionResult<Record<string, any>, unknown>>;
  stop(): Promise<void>;
}

/** A graphql-ws client of `baseUrl`'s /graphql, sending `token` as a bearer in the connection parameters. */
export function liveClient(baseUrl: string, token?: string): LiveClient {
  let onClosed: (closed: Closed) => void = () => undefined;
  const closed = new Promise<Closed>((resolve) => (onClosed = resolve));
  const client = createClient({
    url: `${baseUrl.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: token ? { authorization: `Bearer ${token}` } : {},
    lazy: false,
    retryAttempts: 0,
    onNonLazyError: () => undefined,
    on: { closed: (event) => onClosed({ code: (event as CloseEvent).code, reason: (event as CloseEvent).reason }) },
  });
  return {
    client,
    closed,
    subscribe(query, variables = {}) {
      const results = client.iterate<Record<string, any>>({ query, variables });
      return {
        next: async () => {
          try {
            const { value, done } = await results.next();
            if (done) throw new Error('the subscription ended');
            return value;
          } catch (error) {
            // graphql-ws rejects with the `error` message's GraphQL errors.
            if (Array.isArray(error)) return { errors: error };
            throw error;
          }
        },
        stop: async () => void (await results.return?.()),
      };
    },
    dispose: async () => client.dispose(),
  };
}

/** The live subscriptions the process behind `baseUrl` serves (every topic), from its GET /metrics. */
export async function liveSubscriptions(baseUrl: string): Promise<number> {
  const families = parsePrometheusTextFormat(await (await fetch(`${baseUrl}/metrics`)).text());
  const live = families.find((family) => family.name === 'islet_live_subscriptions');
  return (live?.metrics ?? []).reduce((sum, sample) => sum + Number(sample.value ?? 0), 0);
}
