import type { IncomingHttpHeaders } from 'node:http';
import { invalid } from '../../src/kernel/errors';
import { jsonObject, withTypes, type JsonType } from '../body';
import type { RestReply, RestRoute } from '../route';
import { graphqlInput, headerParameter, string, TOKEN_DATA, USER } from '../openapi/schemas';
import { legacyUser, USER_FIELDS } from './users';

const TOKEN_HEADER = 'X-Tidepool-Session-Token';

const SIGN_UP_TYPES: Record<string, JsonType> = {
  username: 'string',
  emails: 'strings',
  password: 'string',
  roles: 'strings',
};

/** `Authorization: Basic base64(login:password)`, as Tidepool's login expects. */
function basicCredentials(headers: IncomingHttpHeaders): { username: string; password: string } {
  const match = /^basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(headers.authorization ?? '');
  const decoded = match ? Buffer.from(match[1], 'base64').toString('utf8') : '';
  const separator = decoded.indexOf(':');
  if (separator <= 0 || separator === decoded.length - 1) throw invalid('Missing id and/or password');
  return { username: decoded.slice(0, separator), password: decoded.slice(separator + 1) };
}

function header(headers: IncomingHttpHeaders, name: string): string {
  const value = headers[name];
  return (Array.isArray(value) ? value[0] : value)?.trim() ?? '';
}

/** Sends the payload's session token as a header; `body` turns the payload into the legacy body. */
const withToken = (field: string, body: (payload: Record<string, unknown>) => unknown) => {
  return (data: Record<string, unknown>, reply: RestReply) => {
    const payload = data[field] as { session: { token: string } } & Record<string, unknown>;
    reply.header(TOKEN_HEADER, payload.session.token);
    return body(payload);
  };
};

/** Tidepool's TokenData, from a session or a token info. */
const tokenData = (info: Record<string, unknown>) => ({
  userid: info.userId,
  isserver: info.isServer,
  expires_at: Math.floor(Date.parse(String(info.expiresAt)) / 1000),
});

export const sessionRoutes: RestRoute[] = [
  {
    method: 'post',
    path: '/auth/user',
    doc: {
      tag: 'Sessions',
      summary: 'Sign up: create an account and a session',
      body: {
        schema: graphqlInput('SignUpInput'),
        example: { username: 'alex@example.com', emails: ['alex@example.com'], password: 'correct-horse-7' },
      },
      response: USER,
      responseHeaders: [TOKEN_HEADER],
      errors: [409, 429],
      tidepool: 'auth.v1.yaml#CreateNewUser',
    },
    document: `mutation ($input: SignUpInput!) { signUp(input: $input) { session { token } user { ${USER_FIELDS} } } }`,
    variables: ({ body }) => ({ input: withTypes(jsonObject(body), SIGN_UP_TYPES) }),
    respond: withToken('signUp', (session) => legacyUser(session.user)),
    status: 201,
  },
  {
    method: 'post',
    path: '/auth/login',
    doc: {
      tag: 'Sessions',
      summary: 'Log in with a username (or email) and password',
      credentials: 'basic',
      response: USER,
      responseHeaders: [TOKEN_HEADER],
      errors: [429],
      tidepool: 'auth.v1.yaml#CreateSessionToken',
    },
    document: `mutation ($input: LogInInput!) { logIn(input: $input) { session { token } user { ${USER_FIELDS} } } }`,
    variables: ({ headers }) => ({ input: basicCredentials(headers) }),
    respond: withToken('logIn', (session) => legacyUser(session.user)),
    status: 200,
  },
  {
    method: 'get',
    path: '/auth/login',
    doc: {
      tag: 'Sessions',
      summary: 'Refresh the session: a new token for the one sent',
      response: TOKEN_DATA,
      responseHeaders: [TOKEN_HEADER],
      tidepool: 'auth.v1.yaml#RefreshSessionToken',
    },
    document: 'mutation { refreshSession { session { token userId isServer expiresAt } } }',
    respond: withToken('refreshSession', (payload) => tokenData(payload.session as Record<string, unknown>)),
    status: 200,
  },
  {
    method: 'post',
    path: '/auth/logout',
    doc: {
      tag: 'Sessions',
      summary: 'Log out: end the session of the token sent (always succeeds)',
      tidepool: 'auth.v1.yaml#Logout',
    },
    document: 'mutation { logOut { loggedOut } }',
    status: 200,
  },
  {
    method: 'post',
    path: '/auth/serverlogin',
    doc: {
      tag: 'Sessions',
      summary: 'Log in as a server, with its name and the shared server secret',
      credentials: 'none',
      parameters: [
        headerParameter('X-Tidepool-Server-Name', string(), "The server's name"),
        headerParameter('X-Tidepool-Server-Secret', string(), 'The server secret (SERVER_SECRET)'),
      ],
      responseHeaders: [TOKEN_HEADER],
      errors: [429],
      tidepool: 'auth.v1.yaml#ServerLogin',
    },
    document: 'mutation ($input: ServerLogInInput!) { serverLogIn(input: $input) { session { token } } }',
    variables: ({ headers }) => ({
      input: {
        name: header(headers, 'x-tidepool-server-name'),
        secret: header(headers, 'x-tidepool-server-secret'),
      },
    }),
    respond: withToken('serverLogIn', () => undefined),
    status: 200,
  },
  {
    method: 'get',
    path: '/auth/token',
    doc: {
      tag: 'Sessions',
      summary: 'What the token sent is: its account, whether a server holds it, when it expires',
      response: TOKEN_DATA,
      tidepool: 'auth.v1.yaml#CheckSessionToken',
    },
    document: 'query { tokenInfo { userId isServer expiresAt } }',
    respond: (data) => tokenData(data.tokenInfo as Record<string, unknown>),
    status: 200,
  },
  {
    method: 'get',
    path: '/auth/token/:token',
    doc: {
      tag: 'Sessions',
      summary: 'What another token is (for servers)',
      response: TOKEN_DATA,
      tidepool: 'auth.v1.yaml#ServerCheckToken',
    },
    document: 'query ($token: String!) { tokenInfo(token: $token) { userId isServer expiresAt } }',
    variables: ({ params }) => ({ token: params.token }),
    respond: (data) => tokenData(data.tokenInfo as Record<string, unknown>),
    status: 200,
  },
];
