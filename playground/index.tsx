import { element, elsewhere, settings } from './boot';
import { GraphiQL } from 'graphiql';
import type { Fetcher, FetcherOpts, FetcherParams } from '@graphiql/toolkit';
import { getOperationAST, parse, type ExecutionResult } from 'graphql';
import { createClient } from 'graphql-ws';
import 'graphiql/style.css';
import { useState, useSyncExternalStore } from 'react';
import { createRoot } from 'react-dom/client';
import { EXAMPLE_CONTEXT_QUERY, EXAMPLES, exampleVariables, type ExampleContext } from './examples';
import { PlaygroundSession } from './session';
import type { PlaygroundSettings } from './settings';
import './playground.css';

const DEFAULT_QUERY = `# Sign in (top right), then run this
# with the ▶ button or Ctrl+Enter.
{
  me {
    userId
    emails
  }
}
`;

/**
 * The operation to run, parsed (undefined when the query does not parse). GraphiQL learns the
 * operation's name a moment after an edit: a query pasted over a named one and run at once still
 * carries the old name, which its only operation answers to.
 */
function operationToRun(params: FetcherParams): FetcherParams {
  try {
    const document = parse(params.query);
    if (params.operationName && !getOperationAST(document, params.operationName) && getOperationAST(document))
      return { ...params, operationName: undefined };
  } catch {
    // The service answers what is wrong with it.
  }
  return params;
}

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
  return (asked: FetcherParams, opts?: FetcherOpts) => {
    const params = operationToRun(asked);
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
  const { realm, subject, email, error } = JSON.parse(state) as ReturnType<PlaygroundSession['state']>;
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
            Signed in as {email ?? subject}
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

/** Where the examples' variables stand when the account is no clinic's clinician. */
const NO_CLINIC = 'the id of a clinic you are a clinician of';

/** The signed-in clinician's first clinic and one of its tags, for the examples' variables. */
async function exampleContext(fetcher: Fetcher): Promise<ExampleContext> {
  const context = { clinicId: NO_CLINIC, tagId: 'the id of one of its patient tags', now: new Date() };
  try {
    const result = (await fetcher({ query: EXAMPLE_CONTEXT_QUERY })) as ExecutionResult<{
      myClinics: { nodes: { id: string; patientTags: { id: string }[] }[] };
    }>;
    const clinic = result.data?.myClinics.nodes[0];
    if (clinic) Object.assign(context, { clinicId: clinic.id, tagId: clinic.patientTags[0]?.id ?? context.tagId });
  } catch {
    // The examples keep their placeholders; running one says what is wrong.
  }
  return context;
}

/** Keeps nothing: tabs made before signing in are not kept, so the examples open after it. */
class ForgetfulStorage implements Storage {
  private readonly items = new Map<string, string>();
  get length() {
    return this.items.size;
  }
  clear = () => this.items.clear();
  getItem = (key: string) => this.items.get(key) ?? null;
  key = (index: number) => [...this.items.keys()][index] ?? null;
  removeItem = (key: string) => void this.items.delete(key);
  setItem = (key: string, value: string) => void this.items.set(key, value);
}

async function main(): Promise<void> {
  if (elsewhere) return;
  const session = new PlaygroundSession(settings);
  await session.completeSignIn(new URL(window.location.href));
  const fetcher = graphqlFetcher(session);
  const signedIn = session.state().subject !== undefined;
  // Signed in: the ready-made examples, one tab each, their variables filled for this account.
  const context = signedIn ? await exampleContext(fetcher) : undefined;
  const tabs = context
    ? EXAMPLES.map((example) => ({ query: example.query, variables: exampleVariables(example, context) }))
    : undefined;
  createRoot(element).render(
    <>
      <SignIn session={session} settings={settings} />
      <main className="islet-graphiql">
        <GraphiQL
          fetcher={fetcher}
          defaultQuery={DEFAULT_QUERY}
          defaultTabs={tabs}
          storage={signedIn ? localStorage : new ForgetfulStorage()}
        />
      </main>
    </>,
  );
}

void main();
