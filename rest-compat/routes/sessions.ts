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

const withToken = (field: string, body: (session: Record<string, unknown>) => unknown) => {
  return (data: Record<string, unknown>, reply: RestReply) => {
    const session = data[field] as Record<string, unknown>;
    reply.header(TOKEN_HEADER, String(session.token));
    return body(session);
  };
};

const tokenData = (info: Record<string, unknown>) => ({
  userid: info.userid,
  isserver: info.isserver,
  expires_at: Math.floor(Date.parse(String(info.expiresAt)) / 1000),
});

export const sessionRoutes: RestRoute[] = [
  {
    method: 'post',
    path: '/auth/user',
    document: `mutation ($input: SignUpInput!) { signUp(input: $input) { token user { ${USER_FIELDS} } } }`,
    variables: ({ body }) => ({ input: withTypes(jsonObject(body), SIGN_UP_TYPES) }),
    respond: withToken('signUp', (session) => legacyUser(session.user)),
    status: 201,
  },
  {
    method: 'post',
    path: '/auth/login',
    document: `mutation ($username: String!, $password: String!) { logIn(username: $username, password: $password) { token user { ${USER_FIELDS} } } }`,
    variables: ({ headers }) => basicCredentials(headers),
    respond: withToken('logIn', (session) => legacyUser(session.user)),
    status: 200,
  },
  {
    method: 'get',
    path: '/auth/login',
    document: 'mutation { refreshSession { token userid isserver: isServer expiresAt } }',
    respond: withToken('refreshSession', tokenData),
    status: 200,
  },
  {
    method: 'post',
    path: '/auth/logout',
    document: 'mutation { logOut }',
    status: 200,
  },
  {
    method: 'post',
    path: '/auth/serverlogin',
    document: 'mutation ($name: String!, $secret: String!) { serverLogIn(name: $name, secret: $secret) { token } }',
    variables: ({ headers }) => ({
      name: header(headers, 'x-tidepool-server-name'),
      secret: header(headers, 'x-tidepool-server-secret'),
    }),
    respond: withToken('serverLogIn', () => undefined),
    status: 200,
  },
  {
    method: 'get',
    path: '/auth/token',
    document: 'query { tokenInfo { userid isserver expiresAt } }',
    respond: (data) => tokenData(data.tokenInfo as Record<string, unknown>),
    status: 200,
  },
  {
    method: 'get',
    path: '/auth/token/:token',
    document: 'query ($token: String!) { tokenInfo(token: $token) { userid isserver expiresAt } }',
    variables: ({ params }) => ({ token: params.token }),
    respond: (data) => tokenData(data.tokenInfo as Record<string, unknown>),
    status: 200,
  },
];
