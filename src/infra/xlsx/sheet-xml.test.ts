import { describe, expect, it } from '@jest/globals';
import { cellText, columnName, sheetRowXml } from './sheet-xml';

describe('sheet XML', () => {
  it('names columns as spreadsheets do', () => {
    expect([0, 1, 25, 26, 27, 51, 52, 701, 702].map(columnName)).toEqual([
      'A',
      'B',
      'Z',
      'AA',
      'AB',
      'AZ',
      'BA',
      'ZZ',
      'AAA',
    ]);
  });

  it('writes numbers, truth values and text in their cell types, and leaves empty cells out', () => {
    expect(sheetRowXml(7, [1.5, true, 'a & b', null, false])).toBe(
      '<row r="7"><c r="A7"><v>1.5</v></c><c r="B7" t="b"><v>1</v></c>' +
        '<c r="C7" t="inlineStr"><is><t xml:space="preserve">a &amp; b</t></is></c>' +
        '<c r="E7" t="b"><v>0</v></c></row>',
    );
  });

  it('escapes what XML cannot carry, and an underscore that would read as an escape', () => {
    expect(cellText('<tag attr="x">')).toBe('&lt;tag attr=&quot;x&quot;&gt;');
    expect(cellText('bell\u0007 tab\t line\n')).toBe('bell_x0007_ tab\t line\n');
    expect(cellText('_x0041_ stays text; _x1 and snake_case are plain')).toBe(
      '_x005F_x0041_ stays text; _x1 and snake_case are plain',
    );
    expect(cellText('lone \uD800 high, pair \uD83D\uDE00 kept, \uFFFF')).toBe(
      'lone _xD800_ high, pair \uD83D\uDE00 kept, _xFFFF_',
    );
  });
});
