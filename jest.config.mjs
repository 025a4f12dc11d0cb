// Two tiers (docs/testing.md): `unit` needs nothing but Node; `integration` needs what
// test/support/global-setup.ts starts (PostgreSQL, the shared Swift S3 server, the playground
// bundle) and Chromium. A test file belongs to `integration` when it is an end-to-end, browser or
// fuzz suite, or reaches, through its relative imports, one of the support modules that use
// those; the rest are `unit`. `npm test` runs both,
// `npm run test:unit` the first alone.
import fs from 'node:fs';
import path from 'node:path';

const ROOT = import.meta.dirname;
const ROOTS = ['src', 'rest-compat', 'test'];
/** Support modules that reach PostgreSQL, Swift or Chromium, which global-setup.ts prepares. */
const NEEDS_GLOBAL_SETUP = ['database', 'postgres', 's3-server', 'chromium'].map((name) =>
  path.join(ROOT, 'test', 'support', `${name}.ts`),
);
const IMPORT = /\b(?:from|import|require)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g;

function resolve(from, specifier) {
  const base = path.resolve(path.dirname(from), specifier);
  return [`${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts'), base].find(
    (file) => fs.existsSync(file) && fs.statSync(file).isFile(),
  );
}

const importCache = new Map();
/** The files `file` imports by relative path. */
function importsOf(file) {
  if (!importCache.has(file)) {
    const source = fs.readFileSync(file, 'utf8');
    const targets = [...source.matchAll(IMPORT)].map(([, specifier]) => resolve(file, specifier)).filter(Boolean);
    importCache.set(file, targets);
  }
  return importCache.get(file);
}

/** Whether `file` imports, directly or through other files, a module that needs the global setup. */
function needsGlobalSetup(file) {
  const seen = new Set([file]);
  const queue = [file];
  while (queue.length) {
    const next = queue.shift();
    if (NEEDS_GLOBAL_SETUP.includes(next)) return true;
    for (const target of importsOf(next))
      if (!seen.has(target)) {
        seen.add(target);
        queue.push(target);
      }
  }
  return false;
}

function testFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : testFiles(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

const all = ROOTS.flatMap((root) => testFiles(path.join(ROOT, root)));
const escape = (file) => `^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`;
/** End-to-end, browser and fuzz suites drive the whole service (and the build) whatever they import. */
const WHOLE_SERVICE = ['e2e', 'browser', 'fuzz'].map((folder) => path.join(ROOT, 'test', folder) + path.sep);
const integration = all.filter(
  (file) => WHOLE_SERVICE.some((folder) => file.startsWith(folder)) || needsGlobalSetup(file),
);
const unit = all.filter((file) => !integration.includes(file));

const shared = {
  testEnvironment: 'node',
  roots: ROOTS.map((root) => `<rootDir>/${root}`),
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true },
          target: 'es2023',
        },
        module: { type: 'commonjs' },
      },
    ],
  },
  setupFiles: ['reflect-metadata'],
};

export default {
  // Per test and hook; jest reads it only here, not per project.
  testTimeout: 30000,
  // One worker per core: jest's default leaves one idle, which on 2 cores ran files one at a time.
  maxWorkers: '100%',
  // A worker that ran many files held about 3 GB (each file's module registry leaves some behind)
  // and every later file paid for it in collection; past 1 GB after a file, jest starts a fresh one.
  workerIdleMemoryLimit: '1GB',
  testSequencer: '<rootDir>/test/sequencer.mjs',
  projects: [
    { ...shared, displayName: 'unit', testRegex: unit.map(escape) },
    {
      ...shared,
      displayName: 'integration',
      testRegex: integration.map(escape),
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
  ],
};
