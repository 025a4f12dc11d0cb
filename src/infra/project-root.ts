import fs from 'node:fs';
import path from 'node:path';

/** The project's root: the nearest folder above this file with a package.json (from src/ or dist/src/). */
function projectRoot(): string {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${__dirname}`);
    dir = parent;
  }
  return dir;
}

export const PROJECT_ROOT = projectRoot();
