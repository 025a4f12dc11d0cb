import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { contentRoutes, restRoutes, serviceRoutes } from '../../rest-compat/routes';
import { passwordGrant, serverToken, signUp, uniqueEmail, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { logEntries, md5, uploadLog } from '../support/content';
import { call, graphql } from '../support/http';

/**
 * Whole classes of bad input, sent over HTTP to the real service: every path parameter with
 * bad percent-encoding, every date-time input with years the database cannot store, every
 * text input with a NUL character. Each answers 400 naming the field, on both transports, and
 * nothing is logged as an error (none of them is the service's fault).
 */

let app: TestApp;
let alice: TestAccount;
let server: string;
const logLines: string[] = [];

beforeAll(async () => {
  app = await startTestApp({ LOG_LEVEL: 'info' }, { logTo: (line) => logLines.push(line) });
  alice = await signUp(app, 'alice');
  server = await serverToken(app);
});
afterAll(async () => {
  await app?.stop();
});
afterEach(() => {
  const errors = logLines.filter((line) => JSON.parse(line).level === 'error');
  logLines.length = 0;
  expect(errors).toEqual([]);
});

const NUL = '\u0000';
const downloads = contentRoutes({
  blobs: {} as never,
  deviceLogs: {} as never,
  glucose: {} as never,
  patientExport: {} as never,
  agp: {} as never,
  dataExport: {} as never,
});
const allRoutes = [
  ...[...restRoutes, ...serviceRoutes].map(({ method, path }) => ({ method, path })),
  ...downloads.map(({ path }) => ({ method: 'get', path })),
];

/** A plausible value for each path parameter, so only the one under test is wrong. */
const paramValue = (name: string) =>
  ({
    userId: alice.userid,
    sharerId: alice.userid,
    custodianId: alice.userid,
    blobId: 'a'.repeat(32),
    id: 'b'.repeat(32),
    token: 'x',
  })[name] ?? 'x';

/** Each route's path once per parameter, with `bad` (raw, already encoded) in that parameter. */
function withEachParam(bad: string): { method: string; path: string; param: string }[] {
  return allRoutes.flatMap(({ method, path }) => {
    const params = [...path.matchAll(/:(\w+)/g)].map((match) => match[1]);
    return params.map((param) => ({
      method,
      param,
      path: path.replace(/:(\w+)/g, (_, name: string) => (name === param ? bad : paramValue(name))),
    }));
  });
}

describe('paths that do not percent-decode', () => {
  it('covers every parameter of the route table', () => {
    expect(withEachParam('%ff').length).toBeGreaterThanOrEqual(20);
  });

  it.each(['%ff', '%C0%AF', 'a%e2%82', '%'])(
    'answers %s in every path parameter with 400, no token needed',
    async (bad) => {
      for (const { method, path } of withEachParam(bad)) {
        const reply = await call(app.url, path, { method: method.toUpperCase() });
        expect({ method, path, status: reply.status, body: reply.body }).toEqual({
          method,
          path,
          status: 400,
          body: { code: 400, reason: 'The path is not valid percent-encoded UTF-8', error: 0 },
        });
      }
    },
  );

  it('answers them under /realms with an OAuth error', async () => {
    for (const [method, path] of [
      ['GET', '/realms/%ff/.well-known/openid-configuration'],
      ['POST', '/realms/%C0%AF/protocol/openid-connect/token'],
      ['GET', '/realms/dev1/protocol/openid-connect/%ff'],
      ['POST', '/realms/dev1/login-actions/%ff'],
    ]) {
      const reply = await call(app.url, path, { method });
      expect({ path, status: reply.status, body: reply.body }).toEqual({
        path,
        status: 400,
        body: { error: 'invalid_request', error_description: 'The path is not valid percent-encoded UTF-8' },
      });
    }
  });

  it('answers them under /graphql in the GraphQL format', async () => {
    const reply = await call(app.url, '/graphql/%ff', { json: { query: '{ me { userId } }' } });
    expect(reply.status).toBe(400);
    expect(reply.body.errors[0]).toMatchObject({
      extensions: { code: 'BAD_USER_INPUT', requestId: expect.any(String), field: 'path' },
    });
  });
});

/** Instants the database cannot store or ISO 8601 places before year 1 or after 9999 (UTC). */
const OUT_OF_RANGE = [
  '0000-01-01T00:00:00Z',
  '0000-12-31T23:59:59.999Z',
  '0001-01-01T00:00:00+01:00',
  '9999-12-31T23:59:59-01:00',
];
const VALID = '2024-03-01T10:00:00Z';
const LATER = '2024-03-02T10:00:00Z';

describe('date-time inputs out of range', () => {
  const rest: [string, (value: string) => Promise<{ status: number; body: any }>, RegExp][] = [
    [
      'termsAccepted (wrapped update)',
      (value) =>
        call(app.url, '/auth/user', { method: 'PUT', token: alice.token, json: { updates: { termsAccepted: value } } }),
      /^termsAccepted must lie between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z/,
    ],
    [
      'termsAccepted (flat update)',
      (value) =>
        call(app.url, '/auth/user', {
          method: 'PUT',
          token: alice.token,
          json: { emailVerified: false, termsAccepted: value },
        }),
      /^termsAccepted must lie between/,
    ],
    [
      'termsAccepted (update by id)',
      (value) =>
        call(app.url, `/auth/user/${alice.userid}`, {
          method: 'PUT',
          token: server,
          json: { updates: { termsAccepted: value } },
        }),
      /^termsAccepted must lie between/,
    ],
    [
      'X-Logs-Start-At-Time',
      (value) => uploadLog(app, alice.userid, alice.token, { start: value, end: LATER }),
      /^header "X-Logs-Start-At-Time" is invalid/,
    ],
    [
      'X-Logs-End-At-Time',
      (value) => uploadLog(app, alice.userid, alice.token, { start: VALID, end: value }),
      /^header "X-Logs-End-At-Time" is invalid/,
    ],
    [
      'startAtTime',
      (value) =>
        call(
          app.url,
          `/v1/users/${alice.userid}/device_logs?startAtTime=${encodeURIComponent(value)}&endAtTime=${LATER}`,
          {
            token: alice.token,
          },
        ),
      /^startAtTime ".*" is out of range: date-times lie between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z/,
    ],
    [
      'endAtTime',
      (value) =>
        call(
          app.url,
          `/v1/users/${alice.userid}/device_logs?startAtTime=${VALID}&endAtTime=${encodeURIComponent(value)}`,
          {
            token: alice.token,
          },
        ),
      /^endAtTime ".*" is out of range/,
    ],
    [
      'a device log entry timestamp',
      (value) =>
        uploadLog(app, alice.userid, alice.token, { start: VALID, end: LATER }, [
          { ...logEntries(1)[0], timestamp: value },
        ]),
      /^Device log entry 0: timestamp must be an ISO 8601 date-time .* between 0001-01-01T00:00:00Z/,
    ],
  ];

  it.each(rest)('REST %s: 400 naming it', async (_field, send, reason) => {
    for (const value of OUT_OF_RANGE) {
      const reply = await send(value);
      expect({ value, status: reply.status, reason: reply.body.reason }).toEqual({
        value,
        status: 400,
        reason: expect.stringMatching(reason),
      });
    }
  });

  const gql: [string, string, (value: string) => Record<string, unknown>, string][] = [
    [
      'updateMe termsAccepted',
      'mutation ($input: UpdateMeInput!) { updateMe(input: $input) { user { userId } } }',
      (value) => ({ input: { termsAccepted: value } }),
      'termsAccepted',
    ],
    [
      'updateUser termsAccepted',
      'mutation ($input: UpdateUserInput!) { updateUser(input: $input) { user { userId } } }',
      (value) => ({ input: { userId: alice.userid, termsAccepted: value } }),
      'termsAccepted',
    ],
    [
      'deviceLogs startAtTime',
      'query ($u: ID!, $s: DateTime!, $e: DateTime!) { deviceLogs(userId: $u, filter: { startAt: $s, endAt: $e }) { nodes { id } } }',
      (value) => ({ u: alice.userid, s: value, e: LATER }),
      's',
    ],
    [
      'deviceLogs endAtTime',
      'query ($u: ID!, $s: DateTime!, $e: DateTime!) { deviceLogs(userId: $u, filter: { startAt: $s, endAt: $e }) { nodes { id } } }',
      (value) => ({ u: alice.userid, s: VALID, e: value }),
      'e',
    ],
    [
      'User.deviceLogs startAtTime',
      'query ($s: DateTime!, $e: DateTime!) { me { deviceLogs(filter: { startAt: $s, endAt: $e }) { nodes { id } } } }',
      (value) => ({ s: value, e: LATER }),
      's',
    ],
  ];

  it.each(gql)('GraphQL %s, as a variable: 400 naming it', async (_case, query, variables, field) => {
    for (const value of OUT_OF_RANGE) {
      const reply = await graphql(app.url, query, variables(value), alice.token);
      expect({ value, status: reply.status, error: reply.body.errors?.[0] }).toEqual({
        value,
        status: 400,
        error: {
          message: expect.stringMatching(new RegExp(`^${field} must lie between 0001-01-01T00:00:00Z`)),
          locations: expect.any(Array),
          extensions: { code: 'BAD_USER_INPUT', field, requestId: expect.any(String) },
        },
      });
    }
  });

  it('GraphQL literals: 400 naming the rule', async () => {
    for (const value of OUT_OF_RANGE) {
      for (const query of [
        `mutation { updateMe(input: { termsAccepted: "${value}" }) { user { userId } } }`,
        `query { deviceLogs(userId: "${alice.userid}", filter: { startAt: "${value}", endAt: "${LATER}" }) { nodes { id } } }`,
      ]) {
        const reply = await graphql(app.url, query, {}, alice.token);
        expect(reply.status).toBe(400);
        expect(reply.body.errors[0]).toMatchObject({
          message: expect.stringMatching(
            /^DateTime must lie between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z/,
          ),
          extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
        });
      }
    }
  });

  it('GraphQL uploadDeviceLog (multipart): 400 naming the window field', async () => {
    const entries = JSON.stringify(logEntries(2));
    for (const value of OUT_OF_RANGE) {
      const form = new FormData();
      form.append(
        'operations',
        JSON.stringify({
          query: `mutation ($u: ID!, $d: String!, $s: DateTime!, $e: DateTime!, $f: Upload!) {
            uploadDeviceLog(input: { userId: $u, digestMD5: $d, startAt: $s, endAt: $e, content: $f }) { deviceLog { id } } }`,
          variables: { u: alice.userid, d: md5(entries), s: value, e: LATER, f: null },
        }),
      );
      form.append('map', JSON.stringify({ file: ['variables.f'] }));
      form.append('file', new Blob([entries], { type: 'application/json' }), 'log.json');
      const response = await fetch(`${app.url}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${alice.token}`, 'apollo-require-preflight': 'true' },
        body: form,
      });
      const body = (await response.json()) as any;
      expect({ value, status: response.status, error: body.errors?.[0] }).toMatchObject({
        value,
        status: 400,
        error: {
          message: expect.stringMatching(/^s must lie between/),
          extensions: { code: 'BAD_USER_INPUT', field: 's' },
        },
      });
    }
    expect(
      (
        await call(
          app.url,
          `/v1/users/${alice.userid}/device_logs?startAtTime=0001-01-01T00:00:00Z&endAtTime=9999-12-31T23:59:59.999Z`,
          { token: alice.token },
        )
      ).body,
    ).toEqual([]);
  });

  it('accepts the ends of the range on both transports', async () => {
    for (const value of ['0001-01-01T00:00:00Z', '0001-01-01T01:00:00+01:00', '9999-12-31T23:59:59.999Z']) {
      const expected = new Date(value).toISOString();
      const rest = await call(app.url, '/auth/user', {
        method: 'PUT',
        token: alice.token,
        json: { updates: { termsAccepted: value } },
      });
      expect({ status: rest.status, termsAccepted: rest.body.termsAccepted }).toEqual({
        status: 200,
        termsAccepted: expected,
      });
      const gql = await graphql(
        app.url,
        'mutation ($input: UpdateMeInput!) { updateMe(input: $input) { user { termsAccepted } } }',
        { input: { termsAccepted: value } },
        alice.token,
      );
      expect(gql.body).toEqual({ data: { updateMe: { user: { termsAccepted: expected } } } });
      const listed = await call(
        app.url,
        `/v1/users/${alice.userid}/device_logs?startAtTime=${encodeURIComponent(value)}&endAtTime=9999-12-31T23:59:59.999Z`,
        { token: alice.token },
      );
      expect(listed.status).toBe(200);
    }
  });
});

/** The GraphQL schema as clients see it (introspection over HTTP). */
interface TypeRef {
  kind: string;
  name: string | null;
  ofType: TypeRef | null;
}
interface InputValue {
  name: string;
  type: TypeRef;
}
interface FullType {
  kind: string;
  name: string;
  fields: { name: string; args: InputValue[]; type: TypeRef }[] | null;
  inputFields: InputValue[] | null;
  enumValues: { name: string }[] | null;
}
const TYPE = 'kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } }';
const INTROSPECTION = `{ __schema { types { kind name enumValues { name }
  inputFields { name type { ${TYPE} } } fields { name args { name type { ${TYPE} } } type { ${TYPE} } } } } }`;

const named = (type: TypeRef): TypeRef => (type.ofType ? named(type.ofType) : type);
const printed = (type: TypeRef): string =>
  type.kind === 'NON_NULL'
    ? `${printed(type.ofType!)}!`
    : type.kind === 'LIST'
      ? `[${printed(type.ofType!)}]`
      : type.name!;

/** The GraphQL schema over HTTP: its types by name. */
async function schemaTypes(): Promise<Map<string, FullType>> {
  const schema = (await graphql(app.url, INTROSPECTION)).body.data.__schema as { types: FullType[] };
  return new Map(schema.types.map((type) => [type.name, type]));
}

/** A valid value of an input type: required fields only, one entry per list. */
function validInput(types: Map<string, FullType>, userId: string) {
  const valid = (type: TypeRef): unknown => {
    if (type.kind === 'NON_NULL') return valid(type.ofType!);
    if (type.kind === 'LIST') return [valid(type.ofType!)];
    const full = types.get(type.name!)!;
    if (full.kind === 'ENUM') return full.enumValues![0].name;
    if (full.kind === 'INPUT_OBJECT')
      return Object.fromEntries(
        full
          .inputFields!.filter((field) => field.type.kind === 'NON_NULL')
          .map((field) => [field.name, valid(field.type)]),
      );
    return { String: 'x', ID: userId, Int: 1, Boolean: false, DateTime: VALID, Upload: null }[full.name];
  };
  return valid;
}

/** Root fields, and fields of User reached through `me`: every operation a client can send. */
function operationsOf(types: Map<string, FullType>) {
  return [
    ...types.get('Query')!.fields!.map((field) => ({ kind: 'query', field, wrap: (s: string) => s })),
    ...types.get('Mutation')!.fields!.map((field) => ({ kind: 'mutation', field, wrap: (s: string) => s })),
    ...types.get('User')!.fields!.map((field) => ({ kind: 'query', field, wrap: (s: string) => `me { ${s} }` })),
  ];
}

describe('text inputs with a NUL character', () => {
  const nulIn = (text: string) => text.replace('@', `${NUL}@`);

  it('REST sign-up refuses each text field with 400 naming it, and creates nothing', async () => {
    const email = uniqueEmail('nul');
    const valid = { username: email, emails: [email], password: 'long-enough-1', roles: ['clinic'] };
    for (const [field, change] of [
      ['username', { username: nulIn(email) }],
      ['emails[0]', { emails: [nulIn(email)] }],
      ['password', { password: `long-${NUL}-enough` }],
      ['roles[0]', { roles: [`cli${NUL}nic`] }],
    ] as const) {
      const reply = await call(app.url, '/auth/user', { json: { ...valid, ...change } });
      expect({ field, status: reply.status, body: reply.body }).toEqual({
        field,
        status: 400,
        body: { code: 400, reason: `${field} must not contain NUL characters`, error: 0 },
      });
    }
    const login = await call(app.url, '/auth/login', {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${email}:long-enough-1`).toString('base64')}` },
    });
    expect(login.status).toBe(401);
  });

  it('REST updates, custodial accounts, deletion and sharing refuse each text field', async () => {
    const cases: [string, string, string, unknown, string][] = [
      ['PUT', '/auth/user', alice.token, { updates: { username: nulIn(alice.email) } }, 'updates.username'],
      ['PUT', '/auth/user', alice.token, { updates: { emails: [nulIn(alice.email)] } }, 'updates.emails[0]'],
      ['PUT', '/auth/user', alice.token, { updates: { password: `pass${NUL}word-1` } }, 'updates.password'],
      ['PUT', '/auth/user', alice.token, { updates: { roles: [`x${NUL}`] } }, 'updates.roles[0]'],
      ['PUT', '/auth/user', alice.token, { updates: { termsAccepted: `2024${NUL}` } }, 'updates.termsAccepted'],
      ['PUT', '/auth/user', alice.token, { emailVerified: false, username: nulIn(alice.email) }, 'username'],
      ['PUT', `/auth/user/${alice.userid}`, server, { updates: { emails: [nulIn(alice.email)] } }, 'updates.emails[0]'],
      ['POST', `/auth/user/${alice.userid}/user`, alice.token, { username: nulIn('kid@example.org') }, 'username'],
      ['POST', `/auth/user/${alice.userid}/user`, alice.token, { emails: [nulIn('kid@example.org')] }, 'emails[0]'],
      ['DELETE', `/auth/user/${alice.userid}`, alice.token, { password: `x${NUL}` }, 'password'],
      ['POST', `/access/${alice.userid}/${'0'.repeat(10)}`, alice.token, { [`vi${NUL}ew`]: {} }, 'a field name'],
    ];
    const before = (await call(app.url, '/auth/user', { token: alice.token })).body;
    for (const [method, path, token, json, field] of cases) {
      const reply = await call(app.url, path, { method, token, json });
      expect({ path, json, status: reply.status, reason: reply.body.reason }).toEqual({
        path,
        json,
        status: 400,
        reason: `${field} must not contain NUL characters`,
      });
    }
    expect((await call(app.url, '/auth/user', { token: alice.token })).body).toEqual(before);
  });

  it('REST logins refuse NUL in Basic credentials with 400 (was: 503 "database is unavailable")', async () => {
    for (const [field, credentials] of [
      ['username', `${nulIn(alice.email)}:${alice.password}`],
      ['password', `${alice.email}:${alice.password}${NUL}`],
    ]) {
      const reply = await call(app.url, '/auth/login', {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(credentials).toString('base64')}` },
      });
      expect({ status: reply.status, body: reply.body }).toEqual({
        status: 400,
        body: { code: 400, reason: `${field} must not contain NUL characters`, error: 0 },
      });
    }
  });

  it('the password grant refuses NUL in the username or password with 400 invalid_request (was: 500)', async () => {
    for (const [name, username, password] of [
      ['username', nulIn(alice.email), alice.password],
      ['password', alice.email, `${alice.password}${NUL}`],
    ]) {
      const reply = await passwordGrant(app, 'dev1', username, password);
      expect({ status: reply.status, body: reply.body }).toEqual({
        status: 400,
        body: { error: 'invalid_request', error_description: `parameter '${name}' must not contain NUL characters` },
      });
    }
  });

  it('REST path and query parameters refuse NUL with 400', async () => {
    for (const { method, path } of withEachParam('a%00b')) {
      const reply = await call(app.url, path, { method: method.toUpperCase(), token: alice.token });
      expect({ method, path, status: reply.status, body: reply.body }).toEqual({
        method,
        path,
        status: 400,
        body: { code: 400, reason: 'The path must not contain NUL characters', error: 0 },
      });
    }
    for (const [method, path, name] of [
      ['GET', `/v1/users/${alice.userid}/blobs?mediaType=text/plain%00`, 'mediaType'],
      ['GET', `/v1/users/${alice.userid}/blobs?status=available,%00`, 'status'],
      ['GET', `/v1/users/${alice.userid}/device_logs?startAtTime=${VALID}%00&endAtTime=${LATER}`, 'startAtTime'],
      ['DELETE', `/v1/blobs/${'a'.repeat(32)}?revision=1%00`, 'revision'],
      ['GET', `/realms/dev1/protocol/openid-connect/auth?client_id=islet-dev&login_hint=a%00b`, 'login_hint'],
    ]) {
      const reply = await call(app.url, path, { method, token: alice.token });
      expect({ path, status: reply.status }).toEqual({ path, status: 400 });
      expect(JSON.stringify(reply.body)).toContain(`query parameter \\"${name}\\" must not contain NUL characters`);
    }
  });

  it('HTTP headers with NUL never reach a route', async () => {
    const url = new URL(app.url);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(url.port), url.hostname);
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString()));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
      socket.write(
        `POST /auth/serverlogin HTTP/1.1\r\nHost: ${url.host}\r\nConnection: close\r\n` +
          `X-Tidepool-Server-Name: a${NUL}b\r\nX-Tidepool-Server-Secret: ${app.serverSecret}\r\nContent-Length: 0\r\n\r\n`,
      );
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
  });

  /** Every place a text value goes in an input of `type`: its path inside the value, and a value with NUL there. */
  function textPositions(
    types: Map<string, FullType>,
    type: TypeRef,
    valid: (type: TypeRef) => unknown,
  ): { at: string; value: unknown }[] {
    if (type.kind === 'NON_NULL') return textPositions(types, type.ofType!, valid);
    if (type.kind === 'LIST')
      return textPositions(types, type.ofType!, valid).map(({ at, value }) => ({ at: `[0]${at}`, value: [value] }));
    if (type.kind === 'SCALAR' && (type.name === 'String' || type.name === 'ID'))
      return [{ at: '', value: `a${NUL}b` }];
    if (type.kind !== 'INPUT_OBJECT') return [];
    const fields = types.get(type.name!)!.inputFields!;
    return fields.flatMap((field) =>
      textPositions(types, field.type, valid).map(({ at, value }) => ({
        at: `.${field.name}${at}`,
        value: { ...(valid(type) as object), [field.name]: value },
      })),
    );
  }

  it('GraphQL refuses NUL in every text input of every operation, as a variable or a literal', async () => {
    const types = await schemaTypes();
    const valid = validInput(types, alice.userid);
    const operations = operationsOf(types);
    let checked = 0;
    for (const { kind, field, wrap } of operations) {
      const selection = ['OBJECT', 'INTERFACE'].includes(types.get(named(field.type).name!)!.kind)
        ? ' { __typename }'
        : '';
      for (const arg of field.args) {
        for (const { at, value } of textPositions(types, arg.type, valid)) {
          // The field as the service names it: inside an input object, else the variable itself.
          const expected = at.startsWith('.') ? at.slice(1) : `${arg.name}${at}`;
          const required = field.args.filter((other) => other.type.kind === 'NON_NULL' && other !== arg);
          const used = [arg, ...required];
          const variables = Object.fromEntries(
            used.map((other) => [other.name, other === arg ? value : valid(other.type)]),
          );
          const definitions = used.map((other) => `$${other.name}: ${printed(other.type)}`).join(', ');
          const call_ = `${field.name}(${used.map((other) => `${other.name}: $${other.name}`).join(', ')})${selection}`;
          const reply = await graphql(app.url, `${kind} (${definitions}) { ${wrap(call_)} }`, variables, alice.token);
          expect({ field: field.name, at: expected, status: reply.status, error: reply.body.errors?.[0] }).toEqual({
            field: field.name,
            at: expected,
            status: 400,
            error: {
              message: `${expected} must not contain NUL characters`,
              extensions: { code: 'BAD_USER_INPUT', requestId: expect.any(String), field: expected },
            },
          });
          checked += 1;
        }
      }
    }
    expect(checked).toBeGreaterThanOrEqual(25);
    // Literals: the NUL is an escape in the document itself.
    for (const query of [
      'mutation { logIn(input: { username: "a\\u0000b@example.org", password: "long-enough-1" }) { session { token } } }',
      `query { user(id: "\\u{0}") { userId } }`,
      'mutation { signUp(input: {username: "a@b.org", emails: ["a\\u0000@b.org"], password: "long-enough-1"}) { session { token } } }',
    ]) {
      const reply = await graphql(app.url, query, {}, alice.token);
      expect({ query, status: reply.status, error: reply.body.errors?.[0] }).toEqual({
        query,
        status: 400,
        error: {
          message: 'query must not contain NUL characters',
          extensions: { code: 'BAD_USER_INPUT', requestId: expect.any(String), field: 'query' },
        },
      });
    }
    // An escaped backslash before "u0000" is no NUL.
    const text = await graphql(
      app.url,
      'mutation { logIn(input: { username: "a\\\\u0000@b.org", password: "long-enough-1" }) { session { token } } }',
    );
    expect(text.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  }, 60_000);

  it('GraphQL sign-up and login with NUL answer 400 (was: 503 "database is unavailable")', async () => {
    const email = uniqueEmail('gqlnul');
    const signUpReply = await graphql(
      app.url,
      'mutation ($i: SignUpInput!) { signUp(input: $i) { session { token } } }',
      {
        i: { username: nulIn(email), emails: [email], password: 'long-enough-1' },
      },
    );
    expect(signUpReply.status).toBe(400);
    expect(signUpReply.body.errors[0]).toEqual({
      message: 'username must not contain NUL characters',
      extensions: { code: 'BAD_USER_INPUT', requestId: expect.any(String), field: 'username' },
    });
    const login = await graphql(app.url, 'mutation ($i: LogInInput!) { logIn(input: $i) { session { token } } }', {
      i: { username: nulIn(alice.email), password: alice.password },
    });
    expect(login.status).toBe(400);
    expect(login.body.errors[0].extensions).toEqual({
      code: 'BAD_USER_INPUT',
      requestId: expect.any(String),
      field: 'username',
    });
  });
});

describe('lists over their bound', () => {
  const MAX = 100;

  /** Every list in an input of `type`: its path inside the value, and a value with `entries` entries there. */
  function listPositions(
    types: Map<string, FullType>,
    type: TypeRef,
    valid: (type: TypeRef) => unknown,
    entries: number,
  ): { at: string; value: unknown }[] {
    if (type.kind === 'NON_NULL') return listPositions(types, type.ofType!, valid, entries);
    if (type.kind === 'LIST') return [{ at: '', value: Array.from({ length: entries }, () => valid(type.ofType!)) }];
    if (type.kind !== 'INPUT_OBJECT') return [];
    return types.get(type.name!)!.inputFields!.flatMap((field) =>
      listPositions(types, field.type, valid, entries).map(({ at, value }) => ({
        at: `.${field.name}${at}`,
        value: { ...(valid(type) as object), [field.name]: value },
      })),
    );
  }

  /** Each list argument of each operation, sent as a variable with `entries` entries. */
  async function sendEveryList(entries: number) {
    const types = await schemaTypes();
    const valid = validInput(types, alice.userid);
    const replies: { field: string; at: string; status: number; error?: { message: string; extensions: object } }[] =
      [];
    for (const { kind, field, wrap } of operationsOf(types)) {
      const selection = ['OBJECT', 'INTERFACE'].includes(types.get(named(field.type).name!)!.kind)
        ? ' { __typename }'
        : '';
      for (const arg of field.args) {
        for (const { at, value } of listPositions(types, arg.type, valid, entries)) {
          const used = [arg, ...field.args.filter((other) => other.type.kind === 'NON_NULL' && other !== arg)];
          const variables = Object.fromEntries(
            used.map((other) => [other.name, other === arg ? value : valid(other.type)]),
          );
          const definitions = used.map((other) => `$${other.name}: ${printed(other.type)}`).join(', ');
          const call_ = `${field.name}(${used.map((other) => `${other.name}: $${other.name}`).join(', ')})${selection}`;
          const reply = await graphql(app.url, `${kind} (${definitions}) { ${wrap(call_)} }`, variables, alice.token);
          const expected = at.startsWith('.') ? at.slice(1) : arg.name;
          replies.push({ field: field.name, at: expected, status: reply.status, error: reply.body.errors?.[0] });
        }
      }
    }
    return replies;
  }

  it(`GraphQL refuses every list argument of every operation over ${MAX} entries, naming it, and runs nothing`, async () => {
    const before = (await call(app.url, '/auth/user', { token: alice.token })).body;
    const replies = await sendEveryList(MAX + 1);
    expect(replies.length).toBeGreaterThanOrEqual(8);
    for (const reply of replies) {
      expect(reply).toEqual({
        ...reply,
        status: 400,
        error: {
          message: `${reply.at} holds ${MAX + 1} entries; at most ${MAX} are allowed`,
          extensions: { code: 'BAD_USER_INPUT', requestId: expect.any(String), field: reply.at },
        },
      });
    }
    expect((await call(app.url, '/auth/user', { token: alice.token })).body).toEqual(before);
  }, 60_000);

  it(`GraphQL takes every list argument at ${MAX} entries past the bound (other rules may still refuse it)`, async () => {
    for (const reply of await sendEveryList(MAX)) expect(reply.error?.message ?? '').not.toMatch(/entries; at most/);
  }, 60_000);

  it('GraphQL refuses a list literal over the bound in the document too', async () => {
    const ids = JSON.stringify(new Array(MAX + 1).fill(alice.userid));
    const reply = await graphql(app.url, `{ users(ids: ${ids}) { __typename } }`, {}, alice.token);
    expect(reply.status).toBe(400);
    expect(reply.body.errors[0].message).toBe(`ids holds ${MAX + 1} entries; at most ${MAX} are allowed`);
  });

  it('REST refuses emails over the bound on sign-up and update, and the stored account is unchanged', async () => {
    const before = (await call(app.url, '/auth/user', { token: alice.token })).body;
    const emails = Array.from({ length: MAX + 1 }, (_, index) => `many${index}@example.org`);
    const update = await call(app.url, '/auth/user', {
      method: 'PUT',
      token: alice.token,
      json: { updates: { emails, currentPassword: alice.password } },
    });
    const signUpReply = await call(app.url, '/auth/user', {
      method: 'POST',
      json: { username: emails[0], emails, password: 'long-enough-1' },
    });
    for (const reply of [update, signUpReply]) {
      expect({ status: reply.status, body: reply.body }).toEqual({
        status: 400,
        body: { code: 400, reason: `emails holds ${MAX + 1} entries; at most ${MAX} are allowed`, error: 0 },
      });
    }
    expect((await call(app.url, '/auth/user', { token: alice.token })).body).toEqual(before);
    const login = await call(app.url, '/auth/login', {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${emails[0]}:long-enough-1`).toString('base64')}` },
    });
    expect(login.status).toBe(401);
  });

  it('REST refuses a blob list filter over the bound', async () => {
    const mediaTypes = Array.from({ length: MAX + 1 }, (_, index) => `text/t${index}`).join(',');
    const reply = await call(app.url, `/v1/users/${alice.userid}/blobs?mediaType=${mediaTypes}`, {
      token: alice.token,
    });
    expect({ status: reply.status, body: reply.body }).toEqual({
      status: 400,
      body: { code: 400, reason: `mediaType holds ${MAX + 1} entries; at most ${MAX} are allowed`, error: 0 },
    });
  });
});

describe('reasons for a wrong field', () => {
  const SECRET = 'correct-horse-battery';

  it('name the field and the rule on REST, never the input, its password or GraphQL internals', async () => {
    for (const body of [
      { username: 'x@example.org', password: SECRET },
      { username: 'x@example.org', emails: ['x@example.org'], password: SECRET, extra: 1 },
    ]) {
      const reply = await call(app.url, '/auth/user', { json: body });
      expect(reply.status).toBe(400);
      expect(reply.body.reason).toMatch(/^(emails is required|extra is not a known field)$/);
      expect(reply.body.reason).not.toMatch(new RegExp(`${SECRET}|\\$input|SignUpInput|String|Variable`));
    }
    const update = await call(app.url, '/auth/user', {
      method: 'PUT',
      token: alice.token,
      json: { updates: { password: SECRET, termsAccepted: 'yesterday' } },
    });
    expect(update.body).toEqual({
      code: 400,
      reason: 'termsAccepted must be an ISO 8601 date-time with an offset, such as 2024-01-02T03:04:05Z',
      error: 0,
    });
    const status = await call(app.url, `/v1/users/${alice.userid}/blobs?status=lost`, { token: alice.token });
    expect(status.body.reason).toBe('status[0] must be one of created, available, not "lost"');
  });

  it('name the field and the rule on /graphql, never the input or its password', async () => {
    const reply = await graphql(
      app.url,
      'mutation ($input: SignUpInput!) { signUp(input: $input) { session { token } } }',
      {
        input: { username: 'x@example.org', password: SECRET },
      },
    );
    expect(reply.status).toBe(400);
    expect(reply.body.errors[0]).toEqual({
      message: 'emails is required',
      locations: expect.any(Array),
      extensions: { code: 'BAD_USER_INPUT', field: 'emails', requestId: expect.any(String) },
    });
    const literal = await graphql(
      app.url,
      `
        mutation {
          logIn(input: { username: "x@example.org", password: 12345678 }) {
            session {
              token
            }
          }
        }
      `,
    );
    expect(literal.body.errors[0].message).toBe('String cannot represent a non string value');
    expect(JSON.stringify([reply.body, literal.body])).not.toMatch(new RegExp(`${SECRET}|12345678`));
  });
});
