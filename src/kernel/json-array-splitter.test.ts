import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { JsonArrayError, JsonArraySplitter, JsonElementTooLargeError } from './json-array-splitter';

const LIMIT = 1024 * 1024;

/** The elements the splitter hands over for `bytes` cut at `cuts`, or the error it throws. */
function split(bytes: Buffer, cuts: readonly number[] = []): { elements: unknown[] } | { error: string } {
  const elements: unknown[] = [];
  const splitter = new JsonArraySplitter(LIMIT, (value, index) => {
    expect(index).toBe(elements.length);
    elements.push(value);
  });
  const edges = [...new Set([0, ...cuts.map((cut) => cut % (bytes.length + 1)), bytes.length])].sort((a, b) => a - b);
  try {
    for (let at = 1; at < edges.length; at++) splitter.write(bytes.subarray(edges[at - 1], edges[at]));
    splitter.end();
    return { elements };
  } catch (error) {
    if (!(error instanceof JsonArrayError)) throw error;
    return { error: error.message };
  }
}

/** What JSON.parse makes of the whole text: its elements if it is an array, otherwise refused. */
function reference(text: string): { elements: unknown[] } | 'refused' {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? { elements: value } : 'refused';
  } catch {
    return 'refused';
  }
}

const cuts = fc.array(fc.nat(), { maxLength: 8 });
/** JSON text with whitespace of every kind between tokens. */
const spaced = (value: unknown) =>
  fc
    .array(fc.constantFrom(' ', '\n', '\r', '\t', ''), { minLength: 1 })
    .map((spaces) => JSON.stringify(value, null, 1).replace(/\n/g, () => spaces[0] + '\n'));

describe('JsonArraySplitter', () => {
  it('hands over exactly the elements JSON.parse reads, however the bytes are cut', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue()), fc.boolean(), cuts, (array, pretty, at) => {
        const text = pretty ? JSON.stringify(array, null, 2) : JSON.stringify(array);
        expect(split(Buffer.from(text), at)).toEqual({ elements: JSON.parse(text) });
      }),
      { numRuns: 500 },
    );
  });

  it('keeps strings whole across cuts: escaped quotes, backslashes, brackets and multi-byte characters', () => {
    const tricky = fc.stringMatching(/^[\\"{}[\],:a\u00e9\u{1F600}\n]*$/u);
    fc.assert(
      fc.property(fc.array(fc.oneof(tricky, fc.dictionary(tricky, tricky))), cuts, (array, at) => {
        expect(split(Buffer.from(JSON.stringify(array)), at)).toEqual({ elements: array });
      }),
      { numRuns: 500 },
    );
    const text = '["a\\\\", "b\\"]", {"c\\\\\\"": "]}"}]';
    for (let cut = 0; cut <= text.length; cut++)
      expect(split(Buffer.from(text), [cut])).toEqual({ elements: JSON.parse(text) });
  });

  it('accepts and refuses exactly what JSON.parse does for an array, on mangled JSON', () => {
    const mangled = fc
      .tuple(fc.array(fc.jsonValue(), { maxLength: 4 }), fc.nat(), fc.nat(), fc.string({ maxLength: 3 }))
      .chain(([array, from, length, insert]) =>
        spaced(array).map((text) => {
          const at = from % (text.length + 1);
          return text.slice(0, at) + insert + text.slice(at + (length % 3));
        }),
      );
    const anyText = fc.stringMatching(/^[[\]{},:"\\ 0-9a-z.\-+\n]{0,12}$/);
    fc.assert(
      fc.property(fc.oneof(mangled, anyText), cuts, (text, at) => {
        const expected = reference(text);
        const actual = split(Buffer.from(text), at);
        if (expected === 'refused') expect(actual).toHaveProperty('error');
        else expect(actual).toEqual(expected);
      }),
      { numRuns: 3000 },
    );
  });

  it('names what is wrong and where', () => {
    expect(split(Buffer.from(''))).toEqual({ error: 'expected a JSON array, found no data' });
    expect(split(Buffer.from(' {"a": 1}'))).toEqual({ error: 'expected a JSON array: found "{" at byte 1' });
    expect(split(Buffer.from('[1 2]'))).toEqual({ error: 'expected "," or "]" after element 0: found "2" at byte 3' });
    expect(split(Buffer.from('[1,]'))).toEqual({ error: 'expected an element: found "]" at byte 3' });
    expect(split(Buffer.from('[,1]'))).toEqual({ error: 'expected an element or "]": found "," at byte 1' });
    expect(split(Buffer.from('[] []'))).toEqual({ error: 'unexpected data after the array: found "[" at byte 3' });
    expect(split(Buffer.from('[{"a": 1}, {"a": tru}]'))).toMatchObject({
      error: expect.stringMatching(/^element 1 is not valid JSON: /),
    });
    expect(split(Buffer.from('[{"a": 1}, {"b"'), [5])).toEqual({
      error: 'the array ends early, after 15 bytes (element 1)',
    });
  });

  it('refuses an element longer than its limit: whole, at its end, or as soon as what is held exceeds it', () => {
    const element = JSON.stringify({ a: 'x'.repeat(1000) });
    const text = Buffer.from(`[1, ${element}]`);
    const tooLarge = new JsonElementTooLargeError(1, element.length - 1);
    const splitter = () => new JsonArraySplitter(element.length - 1, () => undefined);
    expect(() => splitter().write(text)).toThrow(tooLarge);
    const endingLate = splitter();
    endingLate.write(text.subarray(0, 60));
    expect(() => endingLate.write(text.subarray(60))).toThrow(tooLarge);
    const neverEnding = new JsonArraySplitter(500, () => undefined);
    neverEnding.write(text.subarray(0, 300));
    expect(() => neverEnding.write(text.subarray(300, 600))).toThrow(new JsonElementTooLargeError(1, 500));
    // An element exactly as long as the limit is not refused: both elements are handed over.
    const handedOver: unknown[] = [];
    const exact = new JsonArraySplitter(element.length, (value) => void handedOver.push(value));
    exact.write(text);
    exact.end();
    expect(handedOver).toEqual([1, JSON.parse(element)]);
  });

  it('holds only the element being read: elements each just under the limit pass, cut anywhere', () => {
    const element = JSON.stringify({ a: 'x'.repeat(100) });
    const text = Buffer.from(`[${Array.from({ length: 50 }, () => element).join(',')}]`);
    // The whole array is 50 times the limit: a splitter holding more than one element would refuse it.
    expect(text.length).toBeGreaterThan(50 * element.length);
    for (const piece of [1, 7, 64, 1000]) {
      const handedOver: [unknown, number][] = [];
      const splitter = new JsonArraySplitter(element.length, (value, index) => void handedOver.push([value, index]));
      for (let at = 0; at < text.length; at += piece) splitter.write(text.subarray(at, at + piece));
      splitter.end();
      expect(handedOver).toEqual(Array.from({ length: 50 }, (_, index) => [JSON.parse(element), index]));
    }
  });
});
