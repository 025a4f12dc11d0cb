import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { build, version as esbuildVersion, type BuildOptions } from 'esbuild';
import { PROJECT_ROOT } from '../infra/project-root';
import { PLAYGROUND_BUNDLE, PLAYGROUND_SOURCES } from './paths';

/**
 * Monaco's language services run in web workers, each its own script. They are bundled here
 * and served by the service, like the page's script, so nothing is fetched from elsewhere.
 */
export const WORKERS = {
  'editor.worker': 'monaco-editor/esm/vs/editor/editor.worker.js',
  'json.worker': 'monaco-editor/esm/vs/language/json/json.worker.js',
  'graphql.worker': 'monaco-graphql/esm/graphql.worker.js',
} as const;

const STAMP = '.build-stamp';
/** Served as they are, beside the bundle: the page's icon. */
const STATIC_FILES = ['favicon.svg'];

const common: BuildOptions = {
  bundle: true,
  minify: true,
  target: 'es2022',
  legalComments: 'none',
  logLevel: 'warning',
  absWorkingDir: PROJECT_ROOT,
  define: { 'process.env.NODE_ENV': '"production"' },
};

/** What the bundle is made of: the playground's sources, the locked dependencies, esbuild. */
function fingerprint(): string {
  const hash = crypto.createHash('sha256').update(esbuildVersion);
  const files = fs
    .readdirSync(PLAYGROUND_SOURCES, { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.(ts|tsx|css|json|svg)$/.test(file))
    .sort();
  for (const file of files) hash.update(file).update(fs.readFileSync(path.join(PLAYGROUND_SOURCES, file)));
  hash.update(fs.readFileSync(path.join(PROJECT_ROOT, 'package-lock.json')));
  return hash.digest('hex');
}

/**
 * Bundles the playground into `outdir`: built beside it, then swapped in, so a service (or a
 * test run) reading the bundle meanwhile never sees half of one.
 */
export async function buildPlayground(outdir = PLAYGROUND_BUNDLE, stamp?: string): Promise<void> {
  const staging = `${outdir}.${process.pid}.tmp`;
  fs.rmSync(staging, { recursive: true, force: true });
  await Promise.all([
    build({
      ...common,
      entryPoints: { playground: path.join(PLAYGROUND_SOURCES, 'index.tsx') },
      outdir: staging,
      format: 'esm',
      // Monaco's codicon font, referenced by its stylesheet, is served beside it.
      loader: { '.ttf': 'file', '.woff': 'file', '.woff2': 'file' },
      assetNames: '[name]-[hash]',
    }),
    build({
      ...common,
      entryPoints: Object.fromEntries(Object.entries(WORKERS).map(([name, module]) => [name, require.resolve(module)])),
      outdir: staging,
      format: 'iife',
    }),
  ]);
  for (const file of STATIC_FILES) fs.copyFileSync(path.join(PLAYGROUND_SOURCES, file), path.join(staging, file));
  if (stamp !== undefined) fs.writeFileSync(path.join(staging, STAMP), stamp);
  fs.rmSync(outdir, { recursive: true, force: true });
  try {
    fs.renameSync(staging, outdir);
  } catch (error) {
    // Another build (a parallel test run) swapped its bundle in first: fine if it is this one.
    fs.rmSync(staging, { recursive: true, force: true });
    if (stamp === undefined || readStamp(outdir) !== stamp) throw error;
  }
}

function readStamp(outdir: string): string | undefined {
  const file = path.join(outdir, STAMP);
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
}

/**
 * Builds the bundle unless the one in place was built from the same sources; answers whether it
 * built. `npm run build` and the tests' global setup call it, so a fresh clone gets the bundle.
 */
export async function ensurePlayground(outdir = PLAYGROUND_BUNDLE, beforeBuilding?: () => void): Promise<boolean> {
  const current = fingerprint();
  if (readStamp(outdir) === current) return false;
  beforeBuilding?.();
  await buildPlayground(outdir, current);
  return true;
}
