import { describe, expect, it } from '@jest/globals';
import { buildSchema, getIntrospectionQuery, parse } from 'graphql';
import { queryCost } from './cost';
import { DEFAULT_LIST_LENGTH, DEFAULT_PAGE_SIZE, MAX_QUERY_NODES } from './limits';

const schema = buildSchema(`
  type Blob { id: ID, size: Int }
  type User { id: ID, emails: [String!]!, blobs(page: Int, size: Int): [Blob!]!, sharedWith: [User!]!, friend: User }
  type Query { me: User, users(ids: [ID!]!): [User]!, blobs(size: Int): [Blob!]! }
`);
const cost = (query: string, variables?: Record<string, unknown>) =>
  queryCost(schema, parse(query), variables, undefined);

describe('queryCost', () => {
  it('counts one per value, times the items of each list', () => {
    expect(cost('{ me { id } }')).toBe(2);
    expect(cost('{ me { id emails friend { id } } }')).toBe(1 + 1 + 1 + 2);
    expect(cost('{ me { sharedWith { id } } }')).toBe(1 + DEFAULT_LIST_LENGTH * 2);
  });

  it('prices lists by their size argument, the default page when none is given, and ids by their count', () => {
    expect(cost('{ blobs(size: 1000) { id size } }')).toBe(1000 * 3);
    expect(cost('{ blobs { id } }')).toBe(DEFAULT_PAGE_SIZE * 2);
    expect(cost('query ($ids: [ID!]!) { users(ids: $ids) { blobs(size: 10) { id } } }', { ids: ['a', 'b', 'a'] })).toBe(
      3 * (1 + 10 * 2),
    );
  });

  it('never lets a negative size lower the cost of the rest', () => {
    expect(cost('{ a: blobs(size: -1000000) { id } b: blobs(size: 1000) { id } }')).toBe(2 + 2000);
  });

  it('prices introspection at 1, so tools can read the whole schema', () => {
    expect(cost(getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true }))).toBe(1);
  });

  it('refuses documents whose fragments expand beyond the node budget, quickly, naming it', () => {
    const levels = 30;
    const fragments = Array.from({ length: levels }, (_, i) => `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`);
    const explosion = `{ ...F0 } ${fragments.join(' ')} fragment F${levels} on Query { me { id } }`;
    expect(() => cost(explosion)).toThrow(
      `Query expands to more than ${MAX_QUERY_NODES} selections once its fragments are spread`,
    );
  });

  it('answers variables that do not fit their types as bad input', () => {
    expect(() => cost('query ($ids: [ID!]!) { users(ids: $ids) { id } }', {})).toThrow(
      expect.objectContaining({ extensions: expect.objectContaining({ code: 'BAD_USER_INPUT' }) }),
    );
  });
});
