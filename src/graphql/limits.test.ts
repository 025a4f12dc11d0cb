import { describe, expect, it } from '@jest/globals';
import { buildSchema, parse, validate } from 'graphql';
import { depthLimit } from './limits';

const schema = buildSchema('type Node { id: ID, child: Node } type Query { root: Node }');
const nested = (depth: number): string => (depth === 0 ? 'id' : `child { ${nested(depth - 1)} }`);

describe('depthLimit', () => {
  it('accepts operations up to the limit and rejects deeper ones, fragments included', () => {
    const check = (query: string) => validate(schema, parse(query), [depthLimit(4)]).map((error) => error.message);
    expect(check(`{ root { ${nested(2)} } }`)).toEqual([]);
    expect(check(`{ root { ${nested(4)} } }`)).toEqual(['Query is nested more than 4 levels deep']);
    expect(check(`{ root { ...F } } fragment F on Node { ${nested(4)} }`)[0]).toMatch(/more than 4 levels/);
  });
});
