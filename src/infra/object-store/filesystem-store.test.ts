import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { FilesystemStore } from './filesystem-store';

const HOUR_MS = 3_600_000;

describe('FilesystemStore.removeUnfinishedWrites', () => {
  let root: string;
  let store: FilesystemStore;
  const incoming = (name = '') => path.join(root, 'incoming', name);

  /** A temporary file as a write killed midway leaves it, last changed `ageMs` ago. */
  async function leftover(name: string, ageMs: number): Promise<void> {
    await fsp.mkdir(incoming(), { recursive: true });
    await fsp.writeFile(incoming(name), 'half an upload');
    const changed = new Date(Date.now() - ageMs);
    await fsp.utimes(incoming(name), changed, changed);
  }

  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'islet-fs-store-'));
    store = new FilesystemStore(root);
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('removes temporary files unchanged since the cutoff and keeps younger ones and stored objects', async () => {
    await store.put('kept/object', Readable.from([Buffer.from('bytes')]), { contentType: 'text/plain' });
    await leftover('killed-two-hours-ago', 2 * HOUR_MS);
    await leftover('still-writing', 0);

    expect(await store.removeUnfinishedWrites(new Date(Date.now() - HOUR_MS))).toBe(1);

    expect(fs.readdirSync(incoming())).toEqual(['still-writing']);
    expect(await store.stat('kept/object')).toEqual({ size: 5, contentType: 'text/plain' });
  });

  it('finds nothing to remove before any write made its folder', async () => {
    expect(await store.removeUnfinishedWrites(new Date())).toBe(0);
  });
});
