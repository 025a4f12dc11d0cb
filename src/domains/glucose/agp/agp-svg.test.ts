import { XMLParser } from 'fast-xml-parser';
import { sampleAgp } from '../../../../test/support/agp';
import { agpSvg, escapeXml } from './agp-svg';

const parse = (svg: string) =>
  new XMLParser({
    ignoreAttributes: false,
    parseTagValue: false,
    attributeNamePrefix: '',
    isArray: (name, _path, _leaf, isAttribute) => !isAttribute && name !== 'svg',
  }).parse(svg).svg as Record<string, Record<string, string>[]>;

const texts = (svg: ReturnType<typeof parse>, className: string) =>
  svg.text!.filter((text) => text.class === className).map((text) => String(text['#text']));

describe('agpSvg', () => {
  const svg = parse(agpSvg(sampleAgp()));

  it('draws each band as a polygon per run of bins with percentiles, broken at sparse bins', () => {
    const bands = (name: string) => svg.polygon!.filter((polygon) => polygon.class === name);
    // Bins 40–47 are sparse: two runs, 0–39 and 48–95.
    expect(bands('band-5-95')).toHaveLength(2);
    expect(bands('band-25-75')).toHaveLength(2);
    // A run of n bins: its left edge, n centres, its right edge, along the top and back along the bottom.
    expect(bands('band-5-95')[0]!.points!.split(' ')).toHaveLength(2 * (40 + 2));
    expect(bands('band-5-95')[0]!.points!.split(' ')[0]).toBe(
      '70,' + (430 - (140 + 50 * Math.sin((-60 * Math.PI) / 96) + 90)).toFixed(1).replace(/\.0$/, ''),
    );
  });

  it('draws the median as one path with a break at the gap', () => {
    const [median] = svg.path!.filter((path) => path.class === 'median');
    expect(median!.d!.match(/M/g)).toHaveLength(2);
    expect(median!.stroke).toBe('#0b3d7a');
  });

  it('marks the target range 70–180 mg/dL with two lines and a shaded band', () => {
    const lines = svg.line!.filter((line) => line.class === 'target');
    // 350 mg/dL over 350 px: y = 430 − mg/dL, the limits being 3.9 and 10.0 mmol/L.
    expect(lines.map((line) => Number(line.y1))).toEqual([
      Math.round((430 - 3.9 * 18.01559) * 10) / 10,
      Math.round((430 - 10 * 18.01559) * 10) / 10,
    ]);
    expect(svg.rect!.some((rect) => rect.class === 'target-range')).toBe(true);
  });

  it('labels hours every 3 h, glucose ticks in the units, the period, units and dates', () => {
    expect(texts(svg, 'x-tick')).toEqual([
      '00:00',
      '03:00',
      '06:00',
      '09:00',
      '12:00',
      '15:00',
      '18:00',
      '21:00',
      '24:00',
    ]);
    expect(texts(svg, 'y-tick')).toEqual(['0', '54', '70', '180', '250', '350']);
    expect(texts(svg, 'y-label')).toEqual(['Glucose (mg/dL)']);
    expect(String(svg.title![0])).toBe('AGP, 14d, mg/dL');
    expect(texts(svg, 'subtitle')[0]).toBe(
      '14 days · mg/dL · 2026-01-01 11:00 UTC – 2026-01-15 11:00 UTC · 1256 readings',
    );
    const mmol = parse(agpSvg({ ...sampleAgp(), units: 'MMOL_L', bins: [] }));
    expect(texts(mmol, 'y-tick')).toEqual(['0.0', '3.0', '3.9', '10.0', '13.9', '19.4']);
    expect(texts(mmol, 'y-label')).toEqual(['Glucose (mmol/L)']);
  });

  it('says so when there is no data, and draws no band', () => {
    const empty = parse(
      agpSvg({
        ...sampleAgp(),
        readings: 0,
        from: null,
        to: null,
        bins: sampleAgp().bins.map((bin) => ({
          ...bin,
          count: 0,
          p5: null,
          p25: null,
          p50: null,
          p75: null,
          p95: null,
        })),
      }),
    );
    expect(empty.polygon).toBeUndefined();
    expect(texts(empty, 'no-data')).toEqual(['No CGM data']);
    expect(texts(empty, 'subtitle')[0]).toBe('14 days · mg/dL · 0 readings');
  });

  it('escapes text for XML', () => {
    expect(escapeXml(`<a href="x">&'`)).toBe('&lt;a href=&quot;x&quot;&gt;&amp;&apos;');
  });
});
