import { fromMmol, MG_DL_PER_MMOL_L, type GlucoseUnits } from '../summary/units';
import { THRESHOLDS_MMOL } from '../summary/ranges';
import type { AgpBin } from './agp';
import type { Agp } from './agp.service';

const WIDTH = 900;
const HEIGHT = 480;
const PLOT = { left: 70, right: 880, top: 80, bottom: 430 };
const DAY_MINUTES = 1440;
const BIN_MINUTES = 15;
/** The consensus AGP's glucose axis (Battelino 2019): 0–350 mg/dL, ticks at the range limits. */
const AXIS_MAX_MG_DL = 350;
const TICKS_MG_DL = [0, 54, 70, 180, 250, 350];
const COLOURS = { outer: '#b9d3f0', inner: '#5b9bd8', median: '#0b3d7a', target: '#2e8b57', grid: '#d9d9d9' };
const UNIT_NAMES: Record<GlucoseUnits, string> = { MG_DL: 'mg/dL', MMOL_L: 'mmol/L' };

type Percentile = 'p5' | 'p25' | 'p50' | 'p75' | 'p95';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
/** Text as XML character data or an attribute value. */
export const escapeXml = (text: string) => text.replace(/[&<>"']/g, (character) => ESCAPES[character]!);

const round = (value: number) => Math.round(value * 10) / 10;

/** The chart's scales: x by minute of the day, y by glucose in the AGP's units. */
function scales(agp: Agp) {
  const highest = Math.max(
    fromMmol(AXIS_MAX_MG_DL / MG_DL_PER_MMOL_L, agp.units),
    ...agp.bins.map((bin) => bin.p95 ?? 0),
  );
  const x = (minute: number) => round(PLOT.left + (minute / DAY_MINUTES) * (PLOT.right - PLOT.left));
  const y = (value: number) => round(PLOT.bottom - (value / highest) * (PLOT.bottom - PLOT.top));
  return { x, y };
}

/** Runs of consecutive bins with percentiles: a bin under 5 readings breaks the bands and the median. */
function runs(bins: readonly AgpBin[]): AgpBin[][] {
  const found: AgpBin[][] = [];
  let current: AgpBin[] = [];
  for (const bin of bins) {
    if (bin.p50 === null) {
      if (current.length) found.push(current);
      current = [];
    } else current.push(bin);
  }
  if (current.length) found.push(current);
  return found;
}

/** A run's points along one percentile: its first bin from its left edge, its last to its right edge, centres between. */
function line(run: readonly AgpBin[], key: Percentile, { x, y }: ReturnType<typeof scales>): string[] {
  const first = run[0]!;
  const last = run.at(-1)!;
  return [
    `${x(first.minute)},${y(first[key]!)}`,
    ...run.map((bin) => `${x(bin.minute + BIN_MINUTES / 2)},${y(bin[key]!)}`),
    `${x(last.minute + BIN_MINUTES)},${y(last[key]!)}`,
  ];
}

function bands(agp: Agp, scale: ReturnType<typeof scales>): string {
  const band = (low: Percentile, high: Percentile, name: string, colour: string) =>
    runs(agp.bins)
      .map((run) => {
        const points = [...line(run, high, scale), ...line(run, low, scale).reverse()].join(' ');
        return `<polygon class="${name}" points="${points}" fill="${colour}" stroke="none"/>`;
      })
      .join('');
  const median = runs(agp.bins)
    .map((run) => `M${line(run, 'p50', scale).join('L')}`)
    .join(' ');
  return [
    band('p5', 'p95', 'band-5-95', COLOURS.outer),
    band('p25', 'p75', 'band-25-75', COLOURS.inner),
    median && `<path class="median" d="${median}" fill="none" stroke="${COLOURS.median}" stroke-width="2.5"/>`,
  ].join('');
}

function axes(agp: Agp, { x, y }: ReturnType<typeof scales>): string {
  const parts: string[] = [];
  for (let hour = 0; hour <= 24; hour += 3) {
    const at = x(hour * 60);
    const label = `${String(hour).padStart(2, '0')}:00`;
    parts.push(
      `<line x1="${at}" y1="${PLOT.top}" x2="${at}" y2="${PLOT.bottom}" stroke="${COLOURS.grid}" stroke-width="1"/>`,
      `<text class="x-tick" x="${at}" y="${PLOT.bottom + 20}" text-anchor="middle">${label}</text>`,
    );
  }
  for (const mgdl of TICKS_MG_DL) {
    const value = fromMmol(mgdl / MG_DL_PER_MMOL_L, agp.units);
    const label = agp.units === 'MG_DL' ? String(mgdl) : value.toFixed(1);
    parts.push(
      `<line x1="${PLOT.left}" y1="${y(value)}" x2="${PLOT.right}" y2="${y(value)}" stroke="${COLOURS.grid}" stroke-width="1"/>`,
      `<text class="y-tick" x="${PLOT.left - 8}" y="${y(value) + 4}" text-anchor="end">${label}</text>`,
    );
  }
  parts.push(
    `<text class="x-label" x="${(PLOT.left + PLOT.right) / 2}" y="${HEIGHT - 14}" text-anchor="middle">Local time of day</text>`,
    `<text class="y-label" transform="translate(18 ${(PLOT.top + PLOT.bottom) / 2}) rotate(-90)" text-anchor="middle">Glucose (${UNIT_NAMES[agp.units]})</text>`,
  );
  return parts.join('');
}

/** The target range, 70–180 mg/dL (3.9–10.0 mmol/L): a shaded band under the data, its limits as lines over it. */
function target(agp: Agp, { y }: ReturnType<typeof scales>): { band: string; lines: string } {
  const low = y(fromMmol(THRESHOLDS_MMOL.low, agp.units));
  const high = y(fromMmol(THRESHOLDS_MMOL.high, agp.units));
  const width = PLOT.right - PLOT.left;
  const edge = (at: number) =>
    `<line class="target" x1="${PLOT.left}" y1="${at}" x2="${PLOT.right}" y2="${at}" stroke="${COLOURS.target}" stroke-width="1.5" stroke-dasharray="6 4"/>`;
  return {
    band: `<rect class="target-range" x="${PLOT.left}" y="${high}" width="${width}" height="${round(low - high)}" fill="${COLOURS.target}" fill-opacity="0.08"/>`,
    lines: edge(low) + edge(high),
  };
}

const dateText = (date: Date) => `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

function titles(agp: Agp): string {
  const units = UNIT_NAMES[agp.units];
  const range = agp.from && agp.to ? ` · ${dateText(agp.from)} – ${dateText(agp.to)}` : '';
  const subtitle = `${agp.period.replace('d', ' days')} · ${units}${range} · ${agp.readings} readings`;
  return [
    `<text class="title" x="${PLOT.left}" y="32" font-size="20" font-weight="bold">Ambulatory Glucose Profile (AGP)</text>`,
    `<text class="subtitle" x="${PLOT.left}" y="56" font-size="13">${escapeXml(subtitle)}</text>`,
    agp.readings
      ? ''
      : `<text class="no-data" x="${(PLOT.left + PLOT.right) / 2}" y="${(PLOT.top + PLOT.bottom) / 2}" text-anchor="middle" font-size="16">No CGM data</text>`,
  ].join('');
}

function legend(): string {
  const item = (at: number, colour: string, text: string, shape: string) =>
    `<g transform="translate(${at} 28)">${shape.replace('COLOUR', colour)}<text x="22" y="4">${escapeXml(text)}</text></g>`;
  const box = '<rect x="0" y="-6" width="16" height="10" fill="COLOUR"/>';
  return [
    item(560, COLOURS.outer, '5–95%', box),
    item(640, COLOURS.inner, '25–75%', box),
    item(730, COLOURS.median, 'Median', '<line x1="0" y1="0" x2="16" y2="0" stroke="COLOUR" stroke-width="2.5"/>'),
    item(
      810,
      COLOURS.target,
      'Target',
      '<line x1="0" y1="0" x2="16" y2="0" stroke="COLOUR" stroke-width="1.5" stroke-dasharray="4 3"/>',
    ),
  ].join('');
}

/** The consensus AGP chart of `agp` as a standalone SVG document (plain markup: no browser, no DOM). */
export function agpSvg(agp: Agp): string {
  const scale = scales(agp);
  const range = target(agp, scale);
  const description = `AGP, ${agp.period}, ${UNIT_NAMES[agp.units]}`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="Helvetica, Arial, sans-serif" font-size="12" fill="#222">`,
    `<title>${escapeXml(description)}</title>`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#ffffff"/>`,
    axes(agp, scale),
    range.band,
    bands(agp, scale),
    range.lines,
    `<rect x="${PLOT.left}" y="${PLOT.top}" width="${PLOT.right - PLOT.left}" height="${PLOT.bottom - PLOT.top}" fill="none" stroke="#888"/>`,
    titles(agp),
    legend(),
    '</svg>',
  ].join('\n');
}
