import { describe, expect, it } from '@jest/globals';
import { assertMediaType } from './content';

const verdict = (value: string) => {
  try {
    return assertMediaType(value);
  } catch (error) {
    return (error as Error).message.replace(/ ".*" /s, ' … ');
  }
};

describe('assertMediaType', () => {
  it('takes media types with token and quoted parameters', () => {
    expect(verdict(' image/png ')).toBe('image/png');
    expect(verdict('text/plain; charset=utf-8')).toBe('text/plain; charset=utf-8');
    expect(verdict('multipart/mixed;\tboundary="a b; \\"c\\""')).toBe('multipart/mixed;\tboundary="a b; \\"c\\""');
  });

  it('refuses what a Content-Type header cannot carry back: line breaks, control and non-Latin characters', () => {
    for (const value of [
      'text/plain; a="\n"',
      'text/plain; a="\u007f"',
      'text/plain; a="€"',
      'text/plain; a="é"',
      'text/plain;\n a=b',
      'text/plain;\u00a0a=b',
      'text/plain; a="\\\u0001"',
    ]) {
      expect(verdict(value)).toBe('mediaType … is not a media type such as image/png');
    }
  });
});
