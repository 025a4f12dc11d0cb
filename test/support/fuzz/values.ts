import fc from 'fast-check';
import type { JsonSchema } from '../../../rest-compat/route';
import type { IdPools } from './world';

/**
 * Values that break careless code: numbers at the edges of 32-bit, safe-integer and double
 * ranges, strings that look like numbers or dates but are not, text with NUL, lone surrogates,
 * direction marks and combining characters, text longer than any documented limit, objects
 * nested deeper than the request limit, lists longer than the list limit.
 */
export const BOUNDARY_NUMBERS = [
  0,
  -1,
  1,
  -0,
  0.5,
  2 ** 31 - 1,
  2 ** 31,
  -(2 ** 31) - 1,
  2 ** 32,
  2 ** 53,
  2 ** 53 + 2,
  -(2 ** 53),
  1e308,
  -1e308,
  Number.MIN_VALUE,
];

export const NUMBER_LIKE_STRINGS = [
  'NaN',
  'Infinity',
  '-Infinity',
  '1e309',
  '1e-400',
  '0x1F',
  '1_000',
  '٣',
  ' 1',
  '1 ',
  '+1',
  '01',
  '-0',
  '9'.repeat(400),
  '2147483648',
  '9007199254740993',
];

export const DATE_LIKE_STRINGS = [
  '0000-01-01T00:00:00Z',
  '0001-01-01T00:00:00+01:00',
  '9999-12-31T23:59:59.999Z',
  '9999-12-31T23:59:59.999-01:00',
  '+275760-09-13T00:00:00Z',
  '2024-02-30T00:00:00Z',
  '2023-02-29T00:00:00Z',
  '2024-01-01T24:00:00Z',
  '2024-01-01T00:00:60Z',
  '2024-01-01T00:00:00+99:99',
  '2024-01-01T00:00:00.1234567890Z',
  '2024-01-01',
  '1700000000',
  'yesterday',
];

const WEIRD_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfff',
  '\u202ertl',
  'e\u0301',
  '\ufeff',
  '👩‍⚕️',
  '..',
  '../../etc/passwd',
  '%00',
  '%',
  '%ZZ',
  '\\',
  '"',
  "'",
  "' or '1'='1",
  '<script>alert(1)</script>',
  '${7*7}',
  '__proto__',
  'constructor',
  'null',
  'undefined',
  'true',
  '[]',
  '{}',
  '*',
  '\n',
  '\t',
  ',',
  ',,',
  '&=',
];

/** Text longer than any documented field limit, yet small enough that a case stays fast. */
const huge = (lengths: number[], units: string[]) =>
  fc.tuple(fc.constantFrom(...lengths), fc.constantFrom(...units)).map(([length, unit]) => unit.repeat(length));

export const hugeText = huge([256, 1025, 10_001, 40_000], ['a', 'é', '😀', '\u0000']);
/** For URLs and headers, which the HTTP server bounds at 16 KiB in all. */
export const longAsciiText = huge([256, 1025, 3_000], ['a', '9', '-']);

/** Short text of every kind, and now and then one of `long`. */
const textWith = (long: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.string({ maxLength: 24 }) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 24 }) },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 24 }) },
    { weight: 4, arbitrary: fc.constantFrom(...WEIRD_STRINGS, ...NUMBER_LIKE_STRINGS, ...DATE_LIKE_STRINGS) },
    { weight: 1, arbitrary: long },
  );

export const anyText = textWith(hugeText);

/** Text for a URL or a header: no length that the HTTP server itself refuses. */
export const anyShortText = textWith(longAsciiText);

/** `{"a":{"a":…}}` or `[[…]]`, deeper than MAX_JSON_DEPTH (32) or just below it. */
export const deepValue: fc.Arbitrary<unknown> = fc
  .tuple(fc.constantFrom(8, 31, 33, 60, 200), fc.boolean())
  .map(([depth, asList]) => {
    let value: unknown = 1;
    for (let level = 0; level < depth; level++) value = asList ? [value] : { a: value };
    return value;
  });

/** A list just over the list limit (MAX_LIST_ENTRIES, 100), or far over it. */
export const longList: fc.Arbitrary<unknown[]> = fc
  .tuple(fc.constantFrom(101, 1_000), fc.constantFrom<unknown>('x', 1, null, {}))
  .map(([length, item]) => Array.from({ length }, () => item));

/** Any JSON value of a wrong shape: where an object is expected, a string, a list, a number… */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom<unknown>(null, true, false, [], {}, ...BOUNDARY_NUMBERS) },
  { weight: 3, arbitrary: anyText },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: deepValue },
  { weight: 1, arbitrary: longList },
);

export type { JsonSchema };

/** Names of fields that hold ids: they get the world's ids as often as anything else. */
const ID_FIELD = /(^id$|Id$|^userid$|Ids$|^ids$|^tags$|^key$|^token$|^representations$)/;
const EMAIL_FIELD = /email|username|^name$/i;

function idText(name: string, pools: IdPools): fc.Arbitrary<string> {
  const pool =
    name === 'tags'
      ? pools.patientTags
      : name === 'shareCode'
        ? pools.shareCodes
        : name === 'token'
          ? pools.tokens
          : /^(userid|userId|sharerId|patientId|clinicianId|custodianId|ids)$/.test(name)
            ? pools.users
            : pools.all;
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...pool) },
    { weight: 1, arbitrary: fc.constantFrom(...pools.all) },
  );
}

const isoDate = fc
  .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2030-01-01T00:00:00Z'), noInvalidDate: true })
  .map((date) => date.toISOString());

function textFor(schema: JsonSchema, name: string, pools: IdPools): fc.Arbitrary<string> {
  const choices: fc.Arbitrary<string>[] = [];
  if (schema.format === 'date-time') choices.push(isoDate, fc.constantFrom(...DATE_LIKE_STRINGS));
  if (schema.format === 'date' || /birthDate|Date$/.test(name)) choices.push(isoDate.map((date) => date.slice(0, 10)));
  if (typeof schema.pattern === 'string') {
    try {
      choices.push(fc.stringMatching(new RegExp(schema.pattern)).filter((text) => text.length < 200));
    } catch {
      // A pattern JavaScript cannot read: the other choices stand.
    }
  }
  if (ID_FIELD.test(name)) choices.push(idText(name, pools));
  if (EMAIL_FIELD.test(name)) choices.push(fc.constantFrom(...pools.emails), fc.emailAddress());
  if (/password/i.test(name)) choices.push(fc.string({ minLength: 8, maxLength: 16, unit: 'grapheme-ascii' }));
  if (choices.length === 0) choices.push(fc.string({ maxLength: 16 }), fc.string({ unit: 'grapheme', maxLength: 16 }));
  return fc.oneof(...choices);
}

/** allOf's members merged into one object schema (the only way the route table uses it). */
function merged(schemas: JsonSchema[]): JsonSchema {
  const properties = Object.assign({}, ...schemas.map((schema) => schema.properties ?? {})) as JsonSchema;
  const required = schemas.flatMap((schema) => (schema.required as string[] | undefined) ?? []);
  return { type: 'object', properties, required };
}

const MAX_DEPTH = 4;

/**
 * Values of a JSON schema's shape, most of them valid, with a wrong value at any place now and
 * then (`hostileValue`), and objects that miss a required property or carry an unknown one.
 */
export function valueOf(schema: JsonSchema, name: string, pools: IdPools, depth = 0): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 6, arbitrary: shapedValueOf(schema, name, pools, depth) },
    { weight: 1, arbitrary: hostileValue },
  );
}

function shapedValueOf(schema: JsonSchema, name: string, pools: IdPools, depth: number): fc.Arbitrary<unknown> {
  if (depth > MAX_DEPTH) return fc.constant({});
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const alternatives = (schema.oneOf ?? schema.anyOf) as JsonSchema[] | undefined;
  if (alternatives) return fc.oneof(...alternatives.map((item) => shapedValueOf(item, name, pools, depth)));
  if (Array.isArray(schema.allOf)) return shapedValueOf(merged(schema.allOf as JsonSchema[]), name, pools, depth);
  const declared = Array.isArray(schema.type) ? (schema.type as string[]) : schema.type ? [schema.type as string] : [];
  const types = declared.length ? declared : schema.properties ? ['object'] : schema.items ? ['array'] : ['string'];
  return fc.oneof(...types.map((type) => typedValueOf(type, schema, name, pools, depth)));
}

function typedValueOf(
  type: string,
  schema: JsonSchema,
  name: string,
  pools: IdPools,
  depth: number,
): fc.Arbitrary<unknown> {
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.oneof(
        fc.integer({ min: (schema.minimum as number) ?? -1000, max: (schema.maximum as number) ?? 1000 }),
        fc.constantFrom(...BOUNDARY_NUMBERS),
      );
    case 'number':
      return fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(...BOUNDARY_NUMBERS));
    case 'array': {
      const items = valueOf((schema.items as JsonSchema) ?? {}, name, pools, depth + 1);
      return fc.oneof({ weight: 5, arbitrary: fc.array(items, { maxLength: 3 }) }, { weight: 1, arbitrary: longList });
    }
    case 'object':
      return objectOf(schema, pools, depth);
    default:
      return textFor(schema, name, pools);
  }
}

function objectOf(schema: JsonSchema, pools: IdPools, depth: number): fc.Arbitrary<unknown> {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = ((schema.required as string[] | undefined) ?? []).filter((key) => key in properties);
  const model = Object.fromEntries(
    Object.entries(properties).map(([key, property]) => [key, valueOf(property, key, pools, depth + 1)]),
  );
  const extra = fc.dictionary(fc.oneof(anyText, fc.constantFrom('__proto__', 'constructor')), hostileValue, {
    maxKeys: 2,
  });
  const choices: fc.WeightedArbitrary<unknown>[] = [
    { weight: 6, arbitrary: fc.record(model, { requiredKeys: required }) },
    { weight: 1, arbitrary: fc.record(model, { requiredKeys: [] }) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.record(model, { requiredKeys: required }), extra)
        .map(([known, unknown]) => ({ ...unknown, ...known })),
    },
  ];
  const additional = schema.additionalProperties;
  if (additional && typeof additional === 'object') {
    const keys = schema.propertyNames
      ? shapedValueOf(schema.propertyNames as JsonSchema, 'key', pools, depth)
      : anyText;
    choices.push({
      weight: 4,
      arbitrary: fc.dictionary(
        keys as fc.Arbitrary<string>,
        valueOf(additional as JsonSchema, 'value', pools, depth + 1),
        {
          maxKeys: 4,
        },
      ),
    });
  }
  return fc.oneof(...choices);
}
