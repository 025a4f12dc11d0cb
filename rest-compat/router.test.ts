import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import express from 'express';
import { GraphQLObjectType, GraphQLSchema, GraphQLString } from 'graphql';
import { createLogger } from '../src/infra/logger';
import { AccessTrail } from '../src/kernel/access-trail';
import { AppError } from '../src/kernel/errors';
import type { Scope } from '../src/kernel/scope';
import { restCompatRouter } from './router';
import { JsonText, type RouteServices } from './route';

/** Fields that fail as a bug, and one that refuses as the rules do. */
const schema = new GraphQLSchema({
  query: new GraphQLObjectType({
    name: 'Query',
    fields: {
      first: {
        type: GraphQLString,
        resolve: () => {
          throw new TypeError('first bug');
        },
      },
      second: {
        type: GraphQLString,
        resolve: () => {
          throw new RangeError('second bug');
        },
      },
      greeting: { type: GraphQLString, resolve: () => 'grüße ✓' },
      refused: {
        type: GraphQLString,
        resolve: () => {
          throw new AppError('FORBIDDEN', 'no');
        },
      },
    },
  }),
});

const lines: Record<string, unknown>[] = [];
const logger = createLogger('info', { destination: { write: (line: string) => lines.push(JSON.parse(line)) } });
let server: ReturnType<express.Express['listen']>;
let url: string;

beforeAll(async () => {
  const app = express();
  const withScope: express.RequestHandler = (_req, res, next) => {
    res.locals.scope = { logger, accessTrail: new AccessTrail(null) } as unknown as Scope;
    next();
  };
  app.use(
    restCompatRouter(
      schema,
      [
        { method: 'get', path: '/bugs', document: '{ first second }', status: 200 },
        { method: 'get', path: '/refused-then-bug', document: '{ refused second }', status: 200 },
        { method: 'get', path: '/whole', document: '{ greeting }', respond: (data) => ({ data }), status: 200 },
        {
          method: 'get',
          path: '/in-parts',
          document: '{ greeting }',
          respond: (data) => new JsonText('{"data":', JsonText.joined([new JsonText(JSON.stringify(data))]), '}'),
          status: 200,
        },
      ],
      () => [withScope],
      { routes: [], edge: [] },
      { routes: [], edge: [] },
      // These routes answer from their operation alone.
      {} as RouteServices,
    ),
  );
  server = app.listen(0);
  await new Promise((resolve) => server.once('listening', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

describe('restCompatRouter', () => {
  it('logs every unexpected error of a response, and answers 500 without details', async () => {
    lines.length = 0;
    const reply = await fetch(`${url}/bugs`);
    expect(reply.status).toBe(500);
    expect(await reply.json()).toEqual({ code: 500, reason: 'Internal server error', error: 0 });
    const logged = lines
      .filter((line) => line.level === 'error')
      .map((line) => (line.err as { message: string }).message);
    expect(logged.sort()).toEqual(['first bug', 'second bug']);
  });

  it('sends a body serialised in parts as it would send the whole object, HEAD included', async () => {
    for (const method of ['GET', 'HEAD']) {
      const [whole, inParts] = await Promise.all(
        ['/whole', '/in-parts'].map((path) => fetch(`${url}${path}`, { method })),
      );
      const headersOf = (reply: Response) => ['content-type', 'content-length'].map((name) => reply.headers.get(name));
      expect(headersOf(inParts)).toEqual(headersOf(whole));
      expect(await inParts.text()).toBe(await whole.text());
    }
    const body = await (await fetch(`${url}/in-parts`)).text();
    expect(JSON.parse(body)).toEqual({ data: { greeting: 'grüße ✓' } });
  });

  it('logs the bugs behind a refusal it answers', async () => {
    lines.length = 0;
    const reply = await fetch(`${url}/refused-then-bug`);
    expect(reply.status).toBe(403);
    const logged = lines
      .filter((line) => line.level === 'error')
      .map((line) => (line.err as { message: string }).message);
    expect(logged).toEqual(['second bug']);
  });
});
