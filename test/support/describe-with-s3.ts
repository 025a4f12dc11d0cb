import { describe } from '@jest/globals';
import { s3Missing } from './s3-server';

/**
 * S3 suites need Debian's python3-swift. `.ci/run` installs it and sets REQUIRE_S3=1, so in CI
 * its absence fails the run; elsewhere the suite is skipped with a notice (as for Chromium).
 */
export function describeWithS3(name: string, body: () => void): void {
  const missing = s3Missing();
  if (!missing) return describe(name, body);
  if (process.env.REQUIRE_S3 === '1') throw new Error(`cannot run "${name}": ${missing}`);
  process.stderr.write(`skipping "${name}": ${missing}\n`);
  describe.skip(name, body);
}
