// The npm registry mirror this project is built against lacks some platform-specific optional
// packages (e.g. @swc/core-darwin-arm64). `npm install` silently leaves them out of
// package-lock.json, and `npm ci` then refuses the lock as out of sync. This adds an entry for
// each missing one with its os/cpu/libc, so npm ci knows it does not apply to this platform.
// Run after `npm install` changes the lock: node .ci/stub-missing-optional-deps.mjs
import fs from 'node:fs';

const OS = ['darwin', 'linux', 'win32', 'android', 'freebsd', 'openharmony', 'netbsd', 'openbsd', 'sunos', 'aix'];
const CPU = {
  arm64: 'arm64',
  x64: 'x64',
  ia32: 'ia32',
  arm: 'arm',
  ppc64: 'ppc64',
  s390x: 's390x',
  riscv64: 'riscv64',
  loong64: 'loong64',
  wasm32: 'wasm32',
};

function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((part) => OS.includes(part));
  const cpu = parts.map((part) => CPU[part]).find(Boolean);
  const libc = parts.some((part) => part.startsWith('musl'))
    ? 'musl'
    : parts.some((part) => part.startsWith('gnu'))
      ? 'glibc'
      : undefined;
  return { os, cpu, libc };
}

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(fs.readFileSync(file, 'utf8'));
let added = 0;
for (const [location, entry] of Object.entries(lock.packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const nested = `${location ? `${location}/` : ''}node_modules/${name}`;
    if (lock.packages[nested] || lock.packages[`node_modules/${name}`]) continue;
    const { os, cpu, libc } = platformOf(name);
    if (!os || !cpu) throw new Error(`cannot tell the platform of ${name}; add its lock entry by hand`);
    lock.packages[`node_modules/${name}`] = {
      version,
      cpu: [cpu],
      optional: true,
      os: [os],
      ...(libc ? { libc: [libc] } : {}),
    };
    added += 1;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
fs.writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`added ${added} lock entries for optional packages of other platforms`);
