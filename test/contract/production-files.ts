import fs from 'node:fs';
import path from 'node:path';

/** The repository's root, which the contract tests read. */
export const ROOT = path.resolve(__dirname, '../..');

/** The production TypeScript sources under `dir` (relative to ROOT, tests left out), as relative paths. */
export function productionFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const file = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return productionFiles(file);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.test.ts') ? [file] : [];
  });
}
