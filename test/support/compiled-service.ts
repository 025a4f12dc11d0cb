import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { transformFile, version as swcVersion } from '@swc/core';
import { PROJECT_ROOT } from '../../src/infra/project-root';

/** The folders `src/main.ts` loads code from. */
const SOURCES = ['src', 'migrations', 'rest-compat'];
const CACHE = path.join(PROJECT_ROOT, 'node_modules', '.cache', 'islet-service');
const COMPLETE = '.complete';

/** The transform jest.config.mjs gives @swc/jest, so a test's child service runs the code its tests run. */
const SWC_OPTIONS = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
    target: 'es2023',
  },
  module: { type: 'commonjs' },
  sourceMaps: 'inline',
} as const;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(PROJECT_ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(relative);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [relative] : [];
  });
}

/**
 * The service compiled for a process of its own (a test that kills an instance with -9 needs a
 * real process), in a folder named by a hash of its sources: transformed file by file by swc,
 * as jest transforms them (about a second), where `npm run build` type-checks the whole project
 * first (half a minute on a fresh clone). Answers the path of its `src/main.js`. The folder sits
 * under the project (node_modules/.cache), so the service finds the project root, its packages
 * and the playground bundle as `dist/` does.
 */
export async function compiledService(): Promise<string> {
  const files = SOURCES.flatMap(sourceFiles).sort();
  const hash = createHash('sha256').update(swcVersion);
  for (const file of files) hash.update(file).update(fs.readFileSync(path.join(PROJECT_ROOT, file)));
  const out = path.join(CACHE, hash.digest('hex').slice(0, 16));
  const main = path.join(out, 'src', 'main.js');
  if (fs.existsSync(path.join(out, COMPLETE))) return main;
  // Written beside and renamed into place, so parallel test files never run a half-written copy.
  const staging = `${out}.${process.pid}`;
  fs.rmSync(staging, { recursive: true, force: true });
  await Promise.all(
    files.map(async (file) => {
      const { code } = await transformFile(path.join(PROJECT_ROOT, file), {
        ...SWC_OPTIONS,
        filename: file,
        swcrc: false,
      });
      const target = path.join(staging, file.replace(/\.ts$/, '.js'));
      await fs.promises.mkdir(path.dirname(target), { recursive: true });
      await fs.promises.writeFile(target, code);
    }),
  );
  fs.writeFileSync(path.join(staging, COMPLETE), '');
  try {
    fs.renameSync(staging, out);
  } catch {
    // Another test file compiled the same sources first.
    fs.rmSync(staging, { recursive: true, force: true });
  }
  removeOldCopies(out);
  return main;
}

/** Copies of earlier sources, unless written in the last ten minutes (a run still using one). */
function removeOldCopies(current: string): void {
  const cutoff = Date.now() - 10 * 60_000;
  for (const name of fs.readdirSync(CACHE)) {
    const copy = path.join(CACHE, name);
    if (copy !== current && fs.statSync(copy).mtimeMs < cutoff) fs.rmSync(copy, { recursive: true, force: true });
  }
}
