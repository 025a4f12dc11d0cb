import fs from 'node:fs';
import { describe } from '@jest/globals';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Browser suites need Debian's Chromium. `.ci/run` installs it and sets REQUIRE_BROWSER=1, so
 * in CI its absence fails the run; elsewhere the suite is skipped with a notice.
 */
export function describeWithBrowser(name: string, body: () => void): void {
  if (fs.existsSync(CHROMIUM)) return describe(name, body);
  if (process.env.REQUIRE_BROWSER === '1') throw new Error(`${CHROMIUM} is missing: install Debian's chromium package`);
  process.stderr.write(`skipping "${name}": ${CHROMIUM} is not installed (apt-get install chromium)\n`);
  describe.skip(name, body);
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
