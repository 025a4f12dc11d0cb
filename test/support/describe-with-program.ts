import fs from 'node:fs';
import { describe } from '@jest/globals';

/** A program a suite drives, from the Debian package that installs it. */
export interface DebianProgram {
  path: string;
  debianPackage: string;
  /** Set to `1` (by `.ci/run`) to make the program's absence fail the run instead of skipping. */
  requiredBy: string;
}

/**
 * Runs the suite when the program is installed. Where it is not, CI (which installs it and sets
 * `requiredBy`) fails, and elsewhere the suite is skipped with a notice, as the S3 and browser
 * suites are.
 */
export function describeWithProgram(name: string, program: DebianProgram, body: () => void): void {
  if (fs.existsSync(program.path)) return describe(name, body);
  const missing = `${program.path} is missing (Debian package ${program.debianPackage})`;
  if (process.env[program.requiredBy] === '1') throw new Error(`cannot run "${name}": ${missing}`);
  process.stderr.write(`skipping "${name}": ${missing}\n`);
  describe.skip(name, body);
}
