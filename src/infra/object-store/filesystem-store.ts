import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { ObjectNotFoundError, ObjectStoreUnavailableError, type ObjectStore, type StoredObject } from './object-store';

const SAFE_KEY = /^[\w.-]+(\/[\w.-]+)*$/;

/**
 * The zero-config store: one file per object under `root`, content type in a sidecar file.
 * Writes go to a temporary file renamed into place, so a reader never sees half an object.
 */
export class FilesystemStore implements ObjectStore {
  readonly kind = 'filesystem' as const;
  private readonly objects: string;
  private readonly incoming: string;

  constructor(root: string) {
    this.objects = path.join(root, 'objects');
    this.incoming = path.join(root, 'incoming');
  }

  private file(key: string): string {
    if (!SAFE_KEY.test(key) || key.split('/').some((part) => part === '..' || part === '.')) {
      throw new Error(`unsafe object key ${JSON.stringify(key)}`);
    }
    return path.join(this.objects, key);
  }

  async put(key: string, body: Readable, { contentType }: { contentType: string }): Promise<StoredObject> {
    const target = this.file(key);
    const temporary = path.join(this.incoming, randomUUID());
    try {
      await fsp.mkdir(this.incoming, { recursive: true });
      await pipeline(body, fs.createWriteStream(temporary, { flags: 'wx' }));
      await fsp.mkdir(path.dirname(target), { recursive: true });
      await fsp.writeFile(`${target}.type`, contentType);
      await fsp.rename(temporary, target);
      const { size } = await fsp.stat(target);
      return { size, contentType };
    } catch (error) {
      await fsp.rm(temporary, { force: true });
      throw error;
    }
  }

  async get(key: string): Promise<Readable> {
    const file = this.file(key);
    const handle = await fsp.open(file, 'r').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') throw new ObjectNotFoundError(key);
      throw error;
    });
    return handle.createReadStream();
  }

  async stat(key: string): Promise<StoredObject | null> {
    const file = this.file(key);
    try {
      const [{ size }, contentType] = await Promise.all([
        fsp.stat(file),
        fsp.readFile(`${file}.type`, 'utf8').catch(() => undefined),
      ]);
      return { size, contentType };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    const file = this.file(key);
    await Promise.all([fsp.rm(file, { force: true }), fsp.rm(`${file}.type`, { force: true })]);
  }

  async deletePrefix(prefix: string): Promise<void> {
    for await (const key of this.list(prefix)) await this.delete(key);
  }

  async *list(prefix: string): AsyncIterable<string> {
    const walk = async function* (folder: string, relative: string): AsyncIterable<string> {
      const entries = await fsp.readdir(folder, { withFileTypes: true }).catch(() => []);
      for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
        const key = relative ? `${relative}/${entry.name}` : entry.name;
        if (entry.isDirectory()) yield* walk(path.join(folder, entry.name), key);
        else if (!entry.name.endsWith('.type')) yield key;
      }
    };
    for await (const key of walk(this.objects, '')) if (key.startsWith(prefix)) yield key;
  }

  async ping(): Promise<void> {
    try {
      await fsp.mkdir(this.incoming, { recursive: true });
      await fsp.access(this.incoming, fs.constants.W_OK);
    } catch (error) {
      throw new ObjectStoreUnavailableError(`filesystem store at ${path.dirname(this.objects)} is not writable`, {
        cause: error,
      });
    }
  }
}
