import { describe, expect, it } from '@jest/globals';
import { buildSchema, parse, validate } from 'graphql';
import { listLengthLimit } from './list-limit';

const schema = buildSchema('input Filter { tags: [String!] } type Query { items(ids: [ID!], filter: Filter): [ID] }');
const messages = (query: string) => validate(schema, parse(query), [listLengthLimit(3)]).map((error) => error.message);

describe('listLengthLimit', () => {
  it('accepts list literals up to the bound and names the argument or input field of a longer one', () => {
    expect(messages('{ items(ids: ["a", "b", "c"], filter: { tags: ["x"] }) }')).toEqual([]);
    expect(messages('{ items(ids: ["a", "b", "c", "d"]) }')).toEqual(['ids holds 4 entries; at most 3 are allowed']);
    expect(messages('{ items(filter: { tags: ["a", "b", "c", "d", "e"] }) }')).toEqual([
      'tags holds 5 entries; at most 3 are allowed',
    ]);
  });
});
