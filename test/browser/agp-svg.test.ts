import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { agpSvg } from '../../src/domains/glucose/agp/agp-svg';
import { sampleAgp, sampleMedian } from '../support/agp';
import { describeWithBrowser, launchChromium } from '../support/chromium';

/** Where the rendered chart is kept for a person to look at. */
const PNG = '/tmp/islet-agp-chart.png';

/** The chart's plot: 70–880 px across the day, y = 430 − mg/dL (350 mg/dL over 350 px). */
const xOfBin = (bin: number) => Math.round(70 + ((bin * 15 + 7.5) / 1440) * 810);
const yOf = (mgdl: number) => Math.round(430 - mgdl);

/** Draws the chart on a canvas in the page and reads one pixel back (runs in Chromium, hence a string). */
const READ_PIXEL = `(([x, y]) => {
  const image = document.getElementById('chart');
  const canvas = document.createElement('canvas');
  canvas.width = image.naturalWidth;
  canvas.height = image.naturalHeight;
  const context = canvas.getContext('2d');
  context.drawImage(image, 0, 0);
  return Array.from(context.getImageData(x, y, 1, 1).data.slice(0, 3));
})`;

/** The pixel colour at (x, y) of the SVG as the browser draws it, as `#rrggbb`. */
async function colourAt(page: Page, x: number, y: number): Promise<string> {
  const rgb = (await page.evaluate(`${READ_PIXEL}([${x}, ${y}])`)) as number[];
  return `#${rgb.map((value) => value.toString(16).padStart(2, '0')).join('')}`;
}

describeWithBrowser('the AGP chart in Chromium', () => {
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 900, height: 480 } });
    const source = `data:image/svg+xml;base64,${Buffer.from(agpSvg(sampleAgp())).toString('base64')}`;
    await page.setContent(`<body style="margin:0"><img id="chart" src="${source}"></body>`);
    await page.evaluate("document.getElementById('chart').decode()");
    await page.screenshot({ path: PNG });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('shows the 5–95 band light, the 25–75 band darker and the median darkest where the numbers put them', async () => {
    const bin = 70; // 17:37, in the afternoon peak
    const median = sampleMedian(bin);
    expect(await colourAt(page, xOfBin(bin), yOf(median + 60))).toBe('#b9d3f0');
    expect(await colourAt(page, xOfBin(bin), yOf(median + 10))).toBe('#5b9bd8');
    expect(await colourAt(page, xOfBin(bin), yOf(median))).toBe('#0b3d7a');
    // Above the 95th percentile: the page's white.
    expect(await colourAt(page, xOfBin(bin), yOf(median + 110))).toBe('#ffffff');
  });

  it('leaves a gap in the bands where bins have too few readings (10:00–12:00)', async () => {
    const colour = await colourAt(page, xOfBin(44), yOf(sampleMedian(44) + 15));
    expect(['#5b9bd8', '#b9d3f0', '#0b3d7a']).not.toContain(colour);
  });
});
