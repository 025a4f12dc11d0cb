import { describe, expect, it } from '@jest/globals';
import { buildSchema, getIntrospectionQuery, parse } from 'graphql';
import { CostCache, queryCost } from './cost';
import { DEFAULT_LIST_LENGTH, DEFAULT_PAGE_SIZE, MAX_QUERY_NODES } from './limits';

const schema = buildSchema(`
  type Blob { id: ID, size: Int }
  type PageInfo { hasNextPage: Boolean!, endCursor: String }
  type BlobEdge { cursor: String!, node: Blob! }
  type BlobConnection { edges: [BlobEdge!]!, nodes: [Blob!]!, pageInfo: PageInfo!, totalCount: Int! }
  type User { id: ID, emails: [String!]!, blobs(first: Int, after: String): BlobConnection!, sharedWith: [User!]!, friend: User }
  type Query { me: User, users(ids: [ID!]!): [User]!, blobs(first: Int, after: String): BlobConnection! }
`);
const cost = (query: string, variables?: Record<string, unknown>) =>
  queryCost(schema, parse(query), variables, undefined);

describe('queryCost', () => {
  it('counts one per value, times the items of each list', () => {
    expect(cost('{ me { id } }')).toBe(2);
    // A list of scalars costs its items: emails are priced as a default list.
    expect(cost('{ me { id emails friend { id } } }')).toBe(1 + 1 + DEFAULT_LIST_LENGTH + 2);
    expect(cost('{ me { sharedWith { id } } }')).toBe(1 + DEFAULT_LIST_LENGTH * 2);
  });

  it('prices connections by first, the default page when none is given, and ids by their count', () => {
    expect(cost('{ blobs(first: 100) { nodes { id size } } }')).toBe(100 * (1 + 3));
    expect(cost('{ blobs { nodes { id } } }')).toBe(DEFAULT_PAGE_SIZE * (1 + 2));
    expect(cost('{ blobs(first: 10) { totalCount edges { cursor node { id } } pageInfo { hasNextPage } } }')).toBe(
      10 * (1 + 1 + (1 + 1 + 2) + (1 + 1)),
    );
    expect(
      cost('query ($ids: [ID!]!) { users(ids: $ids) { blobs(first: 10) { nodes { id } } } }', { ids: ['a', 'b', 'a'] }),
    ).toBe(3 * (1 + 10 * (1 + 2)));
  });

  it.each([0, -1, 101, -1000000])('refuses first: %p before anything runs, naming first', (first) => {
    expect(() => cost(`{ a: blobs(first: ${first}) { nodes { id } } }`)).toThrow(
      expect.objectContaining({
        message: 'first must be an integer from 1 to 100',
        extensions: expect.objectContaining({ code: 'BAD_USER_INPUT', field: 'first' }),
      }),
    );
    expect(() => cost('query ($n: Int) { me { blobs(first: $n) { nodes { id } } } }', { n: first })).toThrow(
      expect.objectContaining({ extensions: expect.objectContaining({ code: 'BAD_USER_INPUT', field: 'first' }) }),
    );
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

describe('CostCache', () => {
  it('computes a cost once per document, operation and variables, and anew for long variables', () => {
    const cache = new CostCache(64, 2);
    const document = parse('{ me { id } }');
    let computed = 0;
    const compute = () => ++computed;
    expect(cache.of(document, undefined, {}, compute)).toBe(1);
    expect(cache.of(document, undefined, {}, compute)).toBe(1);
    expect(cache.of(parse('{ me { id } }'), undefined, {}, compute)).toBe(2);
    expect(cache.of(document, 'Named', {}, compute)).toBe(3);
    expect(cache.of(document, undefined, { first: 5 }, compute)).toBe(4);
    const long = { ids: new Array(20).fill('0123456789') };
    expect(cache.of(document, undefined, long, compute)).toBe(5);
    expect(cache.of(document, undefined, long, compute)).toBe(6);
  });
});
