import { describe, expect, it, jest } from '@jest/globals';
import { HeaderMap, type ApolloServer } from '@apollo/server';
import type { Request, Response } from 'express';
import type { Scope } from '../kernel/scope';
import { graphqlHttpHandler } from './http';
import { MAX_RESPONSE_BYTES } from './limits';

/** The handler in front of an Apollo that answers `body`, and what it wrote. */
async function answer(body: string) {
  const apollo = {
    assertStarted: () => undefined,
    executeHTTPGraphQLRequest: async () => ({
      headers: new HeaderMap([['content-type', 'application/json; charset=utf-8']]),
      status: undefined,
      body: { kind: 'complete', string: body },
    }),
  } as unknown as ApolloServer<Scope>;
  const warn = jest.fn();
  const written: { status?: number; json?: unknown; end?: unknown } = {};
  const res = {
    locals: { scope: { requestId: 'r-1', logger: { warn } } },
    setHeader: () => undefined,
    set statusCode(status: number) {
      written.status = status;
    },
    status(status: number) {
      written.status = status;
      return this;
    },
    json: (value: unknown) => (written.json = value),
    end: (value: unknown) => (written.end = value),
  } as unknown as Response;
  const req = { headers: {}, url: '/graphql', method: 'POST', body: {} } as unknown as Request;
  await graphqlHttpHandler(apollo)(req, res);
  return { ...written, warn };
}

describe('graphqlHttpHandler', () => {
  it('sends answers up to the size budget as Apollo wrote them', async () => {
    const body = `{"data":{"s":"${'x'.repeat(MAX_RESPONSE_BYTES - 17)}"}}`;
    expect(Buffer.byteLength(body)).toBe(MAX_RESPONSE_BYTES);
    expect(await answer(body)).toMatchObject({ status: 200, end: body });
  });

  it('refuses an answer over the size budget with 400 naming it, and logs a warning', async () => {
    const body = `{"data":{"s":"${'é'.repeat(MAX_RESPONSE_BYTES / 2)}"}}`;
    const sent = await answer(body);
    expect(sent).toMatchObject({
      status: 400,
      json: {
        errors: [
          {
            message: `The answer would be ${MAX_RESPONSE_BYTES + 17} bytes, more than the maximum of ${MAX_RESPONSE_BYTES}; ask for fewer fields or smaller pages`,
            extensions: { code: 'QUERY_TOO_COMPLEX', requestId: 'r-1' },
          },
        ],
      },
    });
    expect(sent.end).toBeUndefined();
    expect(sent.warn).toHaveBeenCalledTimes(1);
  });
});
