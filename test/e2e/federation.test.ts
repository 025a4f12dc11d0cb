import { ApolloGateway, IntrospectAndCompose, RemoteGraphQLDataSource } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginInlineTraceDisabled } from '@apollo/server/plugin/disabled';
import { startStandaloneServer } from '@apollo/server/standalone';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parse } from 'graphql';
import { serverToken, signUp, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { newClinic } from '../support/clinics';
import { uploadBlob, uploadLog } from '../support/content';
import { call, graphql } from '../support/http';

/**
 * A second team's subgraph, as another team would write it: notes about users, extending
 * Islet's `User` with `notes` and pointing at Islet's users and blobs by their keys only.
 */
const NOTES_SDL = parse(`
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])
  type User @key(fields: "userId") { userId: ID! notes: [Note!]! }
  type Blob @key(fields: "id", resolvable: false) { id: ID! }
  type Note { text: String! about: User attachment: Blob }
  type Query { noteCount: Int! }
`);

interface Note {
  text: string;
  about?: string;
  attachment?: string;
}

let app: TestApp;
let alice: TestAccount;
let bob: TestAccount;
let aliceBlob: { id: string; size: number; digestMD5: string };
const notesByUser = new Map<string, Note[]>();
const authorizationSeenByNotes: (string | undefined)[] = [];
let notes: ApolloServer;
let gateway: ApolloServer;
let gatewayUrl: string;

async function startNotesSubgraph(): Promise<string> {
  notes = new ApolloServer<{ authorization?: string }>({
    schema: buildSubgraphSchema([
      {
        typeDefs: NOTES_SDL,
        resolvers: {
          Query: { noteCount: () => [...notesByUser.values()].flat().length },
          User: {
            __resolveReference: (user: { userId: string }) => user,
            notes: (user: { userId: string }) => notesByUser.get(user.userId) ?? [],
          },
          Note: {
            about: (note: Note) => note.about && { __typename: 'User', userId: note.about },
            attachment: (note: Note) => note.attachment && { __typename: 'Blob', id: note.attachment },
          },
        },
      },
    ]),
    plugins: [ApolloServerPluginInlineTraceDisabled()],
  });
  const { url } = await startStandaloneServer(notes, {
    listen: { port: 0, host: '127.0.0.1' },
    context: async ({ req }) => {
      authorizationSeenByNotes.push(req.headers.authorization);
      return {};
    },
  });
  return url;
}

/** A real gateway from npm composing both subgraphs, forwarding the caller's Authorization. */
async function startGateway(notesUrl: string): Promise<string> {
  const composed = new ApolloGateway({
    supergraphSdl: new IntrospectAndCompose({
      subgraphs: [
        { name: 'islet', url: `${app.url}/graphql` },
        { name: 'notes', url: notesUrl },
      ],
    }),
    buildService: ({ url }) =>
      new RemoteGraphQLDataSource<{ authorization?: string }>({
        url,
        willSendRequest({ request, context }) {
          if (context.authorization) request.http?.headers.set('authorization', context.authorization);
        },
      }),
  });
  gateway = new ApolloServer<{ authorization?: string }>({ gateway: composed });
  const { url } = await startStandaloneServer(gateway, {
    listen: { port: 0, host: '127.0.0.1' },
    context: async ({ req }) => ({ authorization: req.headers.authorization }),
  });
  return url;
}

async function throughGateway(query: string, token?: string) {
  const reply = await fetch(gatewayUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query }),
  });
  return { status: reply.status, text: await reply.text() };
}

beforeAll(async () => {
  app = await startTestApp();
  [alice, bob] = [await signUp(app, 'alice'), await signUp(app, 'bob')];
  const uploaded = await uploadBlob(app, alice.userid, alice.token, 'alice’s meter export');
  expect(uploaded.status).toBe(201);
  aliceBlob = uploaded.body;
  notesByUser.set(alice.userid, [{ text: 'call bob', about: bob.userid, attachment: aliceBlob.id }]);
  notesByUser.set(bob.userid, [{ text: 'seen alice’s export', about: alice.userid, attachment: aliceBlob.id }]);
  gatewayUrl = await startGateway(await startNotesSubgraph());
});
afterAll(async () => {
  await gateway?.stop();
  await notes?.stop();
  await app?.stop();
});

describe('Islet composed into a supergraph by @apollo/gateway', () => {
  it('answers a query that crosses both subgraphs, with the caller’s own data from Islet', async () => {
    const reply = await throughGateway(
      '{ me { userId username notes { text attachment { id mediaType size } } } }',
      alice.token,
    );
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.text)).toEqual({
      data: {
        me: {
          userId: alice.userid,
          username: alice.email,
          notes: [
            {
              text: 'call bob',
              attachment: { id: aliceBlob.id, mediaType: 'application/octet-stream', size: aliceBlob.size },
            },
          ],
        },
      },
    });
    expect(authorizationSeenByNotes.at(-1)).toBe(`Bearer ${alice.token}`);
  });

  it('gives a caller nothing of another user’s account or blob through a reference: null with FORBIDDEN', async () => {
    const reply = await throughGateway(
      '{ me { notes { text about { userId username emails } attachment { id size digestMD5 } } } }',
      bob.token,
    );
    const body = JSON.parse(reply.text);
    // The blob id is the notes subgraph's own data (its key); every field Islet holds stays null.
    expect(body.data.me.notes).toEqual([
      { text: 'seen alice’s export', about: null, attachment: { id: aliceBlob.id, size: null, digestMD5: null } },
    ]);
    expect(body.errors.map((error: { extensions: { code: string } }) => error.extensions.code)).toEqual([
      'FORBIDDEN',
      'FORBIDDEN',
    ]);
    for (const secret of [alice.email, aliceBlob.digestMD5]) expect(reply.text).not.toContain(secret);
  });

  it('resolves the same reference once the owner shares with the caller (the lookup’s own rule)', async () => {
    const granted = await call(app.url, `/access/${alice.userid}/${bob.userid}`, {
      method: 'POST',
      token: alice.token,
      json: { custodian: {} },
    });
    expect(granted.status).toBe(200);
    const reply = await throughGateway('{ me { notes { about { userId username } } } }', bob.token);
    expect(JSON.parse(reply.text)).toEqual({
      data: { me: { notes: [{ about: { userId: alice.userid, username: alice.email } }] } },
    });
    const revoked = await call(app.url, `/access/${alice.userid}/${bob.userid}`, {
      method: 'POST',
      token: alice.token,
      json: {},
    });
    expect(revoked.status).toBe(200);
  });

  it('answers an anonymous caller UNAUTHENTICATED with no data', async () => {
    const reply = await throughGateway('{ me { userId notes { text } } }');
    const body = JSON.parse(reply.text);
    expect(body.data).toBeNull();
    expect(body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    expect(reply.text).not.toContain('call bob');
  });
});

describe('the subgraph protocol at /graphql', () => {
  const ENTITIES = `query ($representations: [_Any!]!) {
    _entities(representations: $representations) { ... on User { userId username } ... on Blob { id size } }
  }`;

  it('publishes its SDL with the entity keys', async () => {
    const reply = await graphql(app.url, '{ _service { sdl } }');
    const sdl: string = reply.body.data._service.sdl;
    expect(sdl).toContain('type User @key(fields: "userId")');
    expect(sdl).toContain('type Blob @key(fields: "id")');
    expect(sdl).toContain('type DeviceLog @key(fields: "id")');
    expect(sdl).toContain('type Clinic @key(fields: "id")');
    expect(sdl).toContain('type ClinicPatient @key(fields: "clinicId userId")');
    expect(sdl).toContain('@link(url: "https://specs.apollo.dev/federation/v2.3"');
  });

  it('resolves each representation by the lookup’s rule: own data, else FORBIDDEN (unknown ids too)', async () => {
    const representations = [
      { __typename: 'User', userId: alice.userid },
      { __typename: 'User', userId: bob.userid },
      { __typename: 'User', userId: '0123456789' },
      { __typename: 'Blob', id: aliceBlob.id },
    ];
    const reply = await graphql(app.url, ENTITIES, { representations }, alice.token);
    expect(reply.body.data._entities).toEqual([
      { userId: alice.userid, username: alice.email },
      null,
      null,
      { id: aliceBlob.id, size: aliceBlob.size },
    ]);
    const codes = reply.body.errors.map((error: { path: unknown[]; extensions: { code: string } }) => [
      error.path,
      error.extensions.code,
    ]);
    expect(codes).toEqual([
      [['_entities', 1], 'FORBIDDEN'],
      [['_entities', 2], 'FORBIDDEN'],
    ]);
    expect(reply.text).not.toContain(bob.email);
  });

  it('answers an unknown id as it answers one the caller may not see, for every entity type', async () => {
    const clinic = await newClinic(app, bob);
    const patient = await graphql(
      app.url,
      'mutation ($c: ID!) { createClinicPatient(input: { clinicId: $c, fullName: "Hidden Patient", birthDate: "2010-10-10" }) { patient { userId } } }',
      { c: clinic.id },
      bob.token,
    );
    const log = await uploadLog(app, bob.userid, bob.token, {
      start: '2024-03-01T00:00:00Z',
      end: '2024-03-02T00:00:00Z',
    });
    const blob = await uploadBlob(app, bob.userid, bob.token);
    const patientId: string = patient.body.data.createClinicPatient.patient.userId;
    // Each entity type: a representation of bob's the caller may not see, and one naming nothing.
    const pairs: Record<string, [Record<string, string>, Record<string, string>]> = {
      User: [{ userId: bob.userid }, { userId: '0123456789' }],
      Blob: [{ id: blob.body.id }, { id: '0123456789abcdef0123456789abcdef' }],
      DeviceLog: [{ id: log.body.id }, { id: '0123456789abcdef0123456789abcdef' }],
      Clinic: [{ id: clinic.id }, { id: '0123456789abcdef01234567' }],
      ClinicPatient: [
        { clinicId: clinic.id, userId: patientId },
        { clinicId: clinic.id, userId: '0123456789' },
      ],
    };
    expect(Object.keys(pairs).sort()).toEqual(
      (
        (await graphql(app.url, '{ __type(name: "_Entity") { possibleTypes { name } } }')).body.data.__type
          .possibleTypes as { name: string }[]
      )
        .map((type) => type.name)
        .sort(),
    );
    const callers = [
      [alice.token, 'FORBIDDEN'],
      [undefined, 'UNAUTHENTICATED'],
    ] as const;
    for (const [token, code] of callers)
      for (const [typename, [hidden, unknown]] of Object.entries(pairs)) {
        const representations = [hidden, unknown].map((keys) => ({ __typename: typename, ...keys }));
        const reply = await graphql(
          app.url,
          'query ($r: [_Any!]!) { _entities(representations: $r) { __typename } }',
          { r: representations },
          token,
        );
        expect(reply.body.data._entities).toEqual([null, null]);
        // The same code and message, but for the id the message names.
        const errors: { path: [string, number]; message: string; extensions: { code: string } }[] = reply.body.errors;
        const answers = [0, 1].map((index) => {
          const error = errors.find((candidate) => candidate.path[1] === index)!;
          const ids = Object.values(representations[index]!);
          return [error.extensions.code, ids.reduce((message, id) => message.replaceAll(id, '<id>'), error.message)];
        });
        expect({ typename, answers }).toEqual({ typename, answers: [answers[0], answers[0]] });
        expect(answers[0]![0]).toBe(code);
      }
  });

  it('tells a server token which references do not exist', async () => {
    const representations = [
      { __typename: 'User', userId: bob.userid },
      { __typename: 'User', userId: '0123456789' },
    ];
    const reply = await graphql(app.url, ENTITIES, { representations }, await serverToken(app));
    expect(reply.body.data._entities).toEqual([{ userId: bob.userid, username: bob.email }, null]);
    expect(reply.body.errors.map((error: { extensions: { code: string } }) => error.extensions.code)).toEqual([
      'NOT_FOUND',
    ]);
  });

  it('refuses representations that name no entity or lack their key as bad input, and more than 100', async () => {
    const wrongKey = await graphql(
      app.url,
      ENTITIES,
      { representations: [{ __typename: 'User', userId: 7 }] },
      alice.token,
    );
    expect(wrongKey.body.data._entities).toEqual([null]);
    expect(wrongKey.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'userId' });

    for (const representation of [{ __typename: 'Session', id: 'x' }, { userId: alice.userid }, 'User']) {
      const reply = await graphql(app.url, ENTITIES, { representations: [representation] }, alice.token);
      expect(reply.body.data).toBeNull();
      expect(reply.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'representations' });
    }

    const many = Array.from({ length: 101 }, () => ({ __typename: 'User', userId: alice.userid }));
    const tooMany = await graphql(app.url, ENTITIES, { representations: many }, alice.token);
    expect(tooMany.status).toBe(400);
    expect(tooMany.text).toContain('representations');
  });

  it('prices each representation like a lookup: a costly selection over many is refused before it runs', async () => {
    const query =
      'query ($r: [_Any!]!) { _entities(representations: $r) { ... on User { sharedBy(first: 10) { nodes { user { blobs(first: 100) { nodes { id } } } } } } } }';
    const status = async (count: number) => {
      const representations = Array.from({ length: count }, () => ({ __typename: 'User', userId: alice.userid }));
      const reply = await graphql(app.url, query, { r: representations }, alice.token);
      return [reply.status, reply.body.errors?.[0]?.extensions?.code ?? 'OK'];
    };
    expect(await status(1)).toEqual([200, 'OK']);
    expect(await status(100)).toEqual([400, 'QUERY_TOO_COMPLEX']);
  });

  it('loads a batch of references in SQL statements that do not grow with the batch', async () => {
    const created: string[] = [];
    for (let index = 0; index < 60; index += 1) {
      const reply = await graphql(
        app.url,
        'mutation ($c: ID!) { createCustodialUser(input: { custodianId: $c }) { user { userId } } }',
        { c: alice.userid },
        alice.token,
      );
      created.push(reply.body.data.createCustodialUser.user.userId);
    }
    const statements = async (count: number) => {
      const representations = created.slice(0, count).map((userId) => ({ __typename: 'User', userId }));
      const reply = await graphql(app.url, ENTITIES, { representations }, alice.token);
      expect(reply.body.data._entities.map((user: { userId: string }) => user.userId)).toEqual(created.slice(0, count));
      return Number(reply.headers.get('x-sql-statements'));
    };
    expect(await statements(60)).toBe(await statements(5));
  });
});
