import type { IncomingHttpHeaders } from 'node:http';
import { invalid } from '../../src/kernel/errors';
import { jsonObject, withTypes, type JsonType } from '../body';
import type { RestReply, RestRoute } from '../route';
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
    document: `mutation ($input: SignUpInput!) { signUp(input: $input) { session { token } user { ${USER_FIELDS} } } }`,
    variables: ({ body }) => ({ input: withTypes(jsonObject(body), SIGN_UP_TYPES) }),
    respond: withToken('signUp', (session) => legacyUser(session.user)),
    status: 201,
  },
  {
    method: 'post',
    path: '/auth/login',
    document: `mutation ($input: LogInInput!) { logIn(input: $input) { session { token } user { ${USER_FIELDS} } } }`,
    variables: ({ headers }) => ({ input: basicCredentials(headers) }),
    respond: withToken('logIn', (session) => legacyUser(session.user)),
    status: 200,
  },
  {
    method: 'get',
    path: '/auth/login',
    document: 'mutation { refreshSession { session { token userId isServer expiresAt } } }',
    respond: withToken('refreshSession', (payload) => tokenData(payload.session as Record<string, unknown>)),
    status: 200,
  },
  {
    method: 'post',
    path: '/auth/logout',
    document: 'mutation { logOut { loggedOut } }',
    status: 200,
  },
  {
    method: 'post',
    path: '/auth/serverlogin',
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
    document: 'query { tokenInfo { userId isServer expiresAt } }',
    respond: (data) => tokenData(data.tokenInfo as Record<string, unknown>),
    status: 200,
  },
  {
    method: 'get',
    path: '/auth/token/:token',
    document: 'query ($token: String!) { tokenInfo(token: $token) { userId isServer expiresAt } }',
    variables: ({ params }) => ({ token: params.token }),
    respond: (data) => tokenData(data.tokenInfo as Record<string, unknown>),
    status: 200,
  },
];
