import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { afterAll, describe, expect, it } from '@jest/globals';
import { objectStoreBytes } from '../metrics';
import { FilesystemStore } from './filesystem-store';
import { MeteredStore } from './metered-store';

const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'islet-metered-'));
afterAll(() => fs.rmSync(folder, { recursive: true, force: true }));

const bytesOut = async () =>
  (await objectStoreBytes.get()).values.find((value) => value.labels.direction === 'out')?.value ?? 0;

describe('MeteredStore', () => {
  it('hands a reader every byte even when it starts reading later, and counts them', async () => {
    const store = new MeteredStore(new FilesystemStore(folder));
    const content = randomBytes(300_000);
    await store.put('a/b', Readable.from([content]), { contentType: 'application/octet-stream' });
    const before = await bytesOut();
    const body = await store.get('a/b');
    // Callers may look something up before they pipe the bytes on: this late start is the
    // behaviour under test, not a wait for something to happen.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await buffer(body)).equals(content)).toBe(true);
    expect((await bytesOut()) - before).toBe(content.length);
  });
});
