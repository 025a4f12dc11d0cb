import { describe, expect, it } from '@jest/globals';
import { buildSchema, getIntrospectionQuery, parse, specifiedRules, validate, type ValidationRule } from 'graphql';
import { aliasLimit, depthLimit, limitRules, MAX_ALIASES, MAX_ROOT_FIELDS, rootFieldLimit } from './limits';

const schema = buildSchema('type Node { id: ID, child: Node } type Query { root: Node, other: Node }');
const nested = (depth: number): string => (depth === 0 ? 'id' : `child { ${nested(depth - 1)} }`);
const messages = (query: string, rules: ValidationRule[]) =>
  validate(schema, parse(query), rules).map((error) => error.message);

/** Fragments that each spread the next one twice: 2^levels fields once expanded, in a few bytes per level. */
function fragmentExplosion(levels: number, type = 'Query', leaf = '__typename'): string {
  const fragments = Array.from({ length: levels }, (_, i) => `fragment F${i} on ${type} { ...F${i + 1} ...F${i + 1} }`);
  return `query { ...F0 } ${fragments.join(' ')} fragment F${levels} on ${type} { ${leaf} }`;
}

describe('depthLimit', () => {
  it('accepts operations up to the limit and rejects deeper ones, fragments included', () => {
    const check = (query: string) => messages(query, [depthLimit(4)]);
    expect(check(`{ root { ${nested(2)} } }`)).toEqual([]);
    expect(check(`{ root { ${nested(4)} } }`)).toEqual(['Query is nested more than 4 levels deep']);
    expect(check(`{ root { ...F } } fragment F on Node { ${nested(4)} }`)[0]).toMatch(/more than 4 levels/);
    expect(check(`{ root { ... on Node { ${nested(4)} } } }`)[0]).toMatch(/more than 4 levels/);
  });

  it('measures each fragment once: fragments spreading the next one twice, 400 levels deep, validate at once', () => {
    // Before fragments were memoised this took 2^400 steps; 23 levels took seconds.
    expect(messages(fragmentExplosion(400), [...specifiedRules, ...limitRules])).toEqual([]);
    const deep = fragmentExplosion(400, 'Node', nested(13));
    expect(messages(`{ root { ...F0 } } ${deep.slice(deep.indexOf('fragment'))}`, [depthLimit(12)])).toEqual([
      'Query is nested more than 12 levels deep',
    ]);
  });

  it('leaves introspection to graphql-js, so the standard introspection query of GraphQL tools passes', () => {
    const query = getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true, specifiedByUrl: true });
    expect(messages(query, [...specifiedRules, ...limitRules])).toEqual([]);
    expect(messages(`{ __schema { types { name } } root { ${nested(12)} } }`, [depthLimit(12)])[0]).toMatch(
      /more than 12 levels/,
    );
  });

  it('leaves fragment cycles to graphql-js, without looping', () => {
    const cycle = '{ root { ...A } } fragment A on Node { child { ...B } } fragment B on Node { child { ...A } }';
    expect(messages(cycle, [...specifiedRules, depthLimit(4)])).toEqual([
      'Cannot spread fragment "A" within itself via "B".',
    ]);
  });
});

describe('aliasLimit', () => {
  const aliased = (count: number) => `{ ${Array.from({ length: count }, (_, i) => `a${i}: root { id }`).join(' ')} }`;

  it(`accepts up to ${MAX_ALIASES} aliases and names the limit above it`, () => {
    expect(messages(aliased(MAX_ALIASES), [aliasLimit()])).toEqual([]);
    expect(messages(aliased(MAX_ALIASES + 1), [aliasLimit()])).toEqual([
      `Query has ${MAX_ALIASES + 1} aliases, more than ${MAX_ALIASES}`,
    ]);
  });
});

describe('rootFieldLimit', () => {
  it('counts the root fields execution runs: merged response names, each fragment once', () => {
    const check = (query: string) => messages(query, [rootFieldLimit(2)]);
    expect(check('{ root { id } root { id } other { id } }')).toEqual([]);
    expect(check('{ ...F ...F } fragment F on Query { root { id } other { id } }')).toEqual([]);
    expect(check('{ a: root { id } b: root { id } c: root { id } }')).toEqual([
      'Operation has 3 root fields, more than 2',
    ]);
    expect(check('{ root { id } ...F } fragment F on Query { x: other { id } y: other { id } }')).toEqual([
      'Operation has 3 root fields, more than 2',
    ]);
    expect(MAX_ROOT_FIELDS).toBeGreaterThan(2);
  });
});
