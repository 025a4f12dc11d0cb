import { element, settings } from './boot';
import { GraphiQL } from 'graphiql';
import type { Fetcher, FetcherOpts, FetcherParams } from '@graphiql/toolkit';
import { getOperationAST, parse, type ExecutionResult } from 'graphql';
import { createClient } from 'graphql-ws';
import 'graphiql/style.css';
import { useState, useSyncExternalStore } from 'react';
import { createRoot } from 'react-dom/client';
import { PlaygroundSession } from './session';
import type { PlaygroundSettings } from './settings';
import './playground.css';

const DEFAULT_QUERY = `# Sign in (top right), then run this with the ▶ button or Ctrl+Enter.
{
  me {
    userId
  }
}
`;

/** Whether the operation to run is a subscription (those go over WebSocket). */
function isSubscription(params: FetcherParams): boolean {
  try {
    return getOperationAST(parse(params.query), params.operationName ?? undefined)?.operation === 'subscription';
  } catch {
    return false;
  }
}

/**
 * Every operation goes to this origin's /graphql with the signed-in user's access token: queries
 * and mutations as POSTs, subscriptions over WebSocket (graphql-ws), whose connection takes a
 * fresh token each time it (re)connects.
 */
function graphqlFetcher(session: PlaygroundSession): Fetcher {
  const live = createClient({
    url: `${window.location.protocol === 'https:' ? 'wss' : 'ws'}://${window.location.host}/graphql`,
    connectionParams: async () => {
      const token = await session.accessToken();
      return token ? { authorization: `Bearer ${token}` } : {};
    },
  });
  return (params: FetcherParams, opts?: FetcherOpts) => {
    // Results arrive as JSON (formatted errors), over WebSocket as over HTTP; GraphiQL shows them as such.
    if (isSubscription(params))
      return live.iterate({
        query: params.query,
        operationName: params.operationName,
        variables: params.variables ?? {},
      }) as AsyncIterable<ExecutionResult>;
    return (async () => {
      const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
      for (const [name, value] of Object.entries(opts?.headers ?? {})) headers[name.toLowerCase()] = String(value);
      const token = await session.accessToken();
      if (token && !headers.authorization) headers.authorization = `Bearer ${token}`;
      const response = await fetch('/graphql', { method: 'POST', headers, body: JSON.stringify(params) });
      return (await response.json()) as ExecutionResult;
    })();
  };
}

function SignIn({ session, settings }: { session: PlaygroundSession; settings: PlaygroundSettings }) {
  const state = useSyncExternalStore(
    (listener) => session.subscribe(listener),
    () => JSON.stringify(session.state()),
  );
  const { realm, subject, error } = JSON.parse(state) as ReturnType<PlaygroundSession['state']>;
  const [busy, setBusy] = useState(false);
  return (
    <header className="islet-bar">
      <span className="islet-title">Islet GraphQL</span>
      <label>
        Realm{' '}
        <select value={realm} disabled={busy} onChange={(event) => session.selectRealm(event.target.value)}>
          {settings.realms.map((name) => (
            <option key={name}>{name}</option>
          ))}
        </select>
      </label>
      {subject ? (
        <>
          <span className="islet-user" data-testid="signed-in-as">
            Signed in as {subject}
          </span>
          <button type="button" onClick={() => void session.signOutOfRealm()}>
            Sign out
          </button>
        </>
      ) : (
        <button
          type="button"
          disabled={busy}
          onClick={() => {
            setBusy(true);
            session.signIn().catch(() => setBusy(false));
          }}
        >
          Sign in
        </button>
      )}
      {error && (
        <span className="islet-error" role="alert">
          {error}
        </span>
      )}
    </header>
  );
}

async function main(): Promise<void> {
  const session = new PlaygroundSession(settings);
  await session.completeSignIn(new URL(window.location.href));
  const fetcher = graphqlFetcher(session);
  createRoot(element).render(
    <>
      <SignIn session={session} settings={settings} />
      <main className="islet-graphiql">
        <GraphiQL fetcher={fetcher} defaultQuery={DEFAULT_QUERY} />
      </main>
    </>,
  );
}

void main();
