import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from '@jest/globals';
import { PROJECT_ROOT } from '../../src/infra/project-root';
import { PLAYGROUND_BUNDLE } from '../../src/playground/paths';

/** `npm run build`, which `npm start` runs first: what it printed (it reports on stderr, leaving stdout to the service's log). */
async function build(): Promise<{ stdout: string; stderr: string }> {
  return promisify(execFile)('npm', ['run', 'build', '--silent'], { cwd: PROJECT_ROOT, maxBuffer: 16 << 20 });
}

/** When each output was last written. */
const writtenAt = () =>
  [
    'dist/src/main.js',
    'dist/src/app.js',
    path.relative(PROJECT_ROOT, path.join(PLAYGROUND_BUNDLE, 'playground.js')),
  ].map((file) => [file, fs.statSync(path.join(PROJECT_ROOT, file)).mtimeMs]);

describe('npm run build', () => {
  it('says what it builds, and builds nothing when the build is current', async () => {
    const first = await build();
    expect(first.stderr).toMatch(/Project 'tsconfig\.build\.json' is (up to date|out of date)/);
    expect(first.stderr).toMatch(/GraphQL playground/);
    const before = writtenAt();

    const second = await build();
    expect(second.stdout).toBe('');
    expect(second.stderr).toMatch(/Project 'tsconfig\.build\.json' is up to date/);
    expect(second.stderr).not.toMatch(/Building project/);
    expect(second.stderr).toMatch(/GraphQL playground bundle .* is up to date/);
    expect(writtenAt()).toEqual(before);
  }, 300_000);
});
