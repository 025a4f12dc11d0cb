import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { CONTENT_BUFFER_BYTES } from '../../kernel/content';
import {
  ObjectNotFoundError,
  ObjectSizeMismatchError,
  ObjectStoreUnavailableError,
  type ObjectStore,
  type PutOptions,
  type StoredObject,
} from './object-store';

const SAFE_KEY = /^[\p{L}\p{M}\p{N}_.~!'()*+=& -]+(\/[\p{L}\p{M}\p{N}_.~!'()*+=& -]+)*$/u;

/**
 * Throws unless `key` is `/`-separated segments of letters and digits of any script, `_`, `.`,
 * `~`, `-`, space and `!'()*+=&` (no `.` or `..` segment): characters Linux file systems and S3
 * take as they are. Every driver applies it, so a key that works with one works with all.
 */
export function checkObjectKey(key: string): void {
  if (!SAFE_KEY.test(key) || key.split('/').some((part) => part === '..' || part === '.')) {
    throw new Error(`unsafe object key ${JSON.stringify(key)}`);
  }
}

/** Makes a folder's entries (a renamed-in file, a new subfolder) survive a crash. */
async function syncFolder(folder: string): Promise<void> {
  const handle = await fsp.open(folder, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Flushes `folder`, which gained an entry, and each folder above it that gained one because
 * `mkdir` created the folder below it: up to the parent of `createdTop`, the highest it created.
 */
async function syncFoldersUp(folder: string, createdTop: string | undefined): Promise<void> {
  const last = createdTop ? path.dirname(createdTop) : folder;
  for (let current = folder; ; current = path.dirname(current)) {
    await syncFolder(current);
    if (current === last || current === path.dirname(current)) return;
  }
}

/** Files removed at once by deleteMany: enough to overlap the disk's latency, few enough descriptors. */
const PARALLEL_DELETES = 16;

const MISSING = new Set(['ENOENT', 'ENOTDIR']);
const isMissing = (error: unknown) => MISSING.has((error as NodeJS.ErrnoException | null)?.code ?? '');

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
    checkObjectKey(key);
    return path.join(this.objects, key);
  }

  /** The disk failed us (EACCES, ENOSPC, EIO…): callers answer 503, as for an unreachable S3. */
  private failure(what: string, error: unknown): ObjectStoreUnavailableError {
    const detail = error instanceof Error ? error.message : String(error);
    return new ObjectStoreUnavailableError(
      `filesystem store at ${path.dirname(this.objects)} failed to ${what}: ${detail}`,
      {
        cause: error,
      },
    );
  }

  async put(key: string, body: Readable, { contentType, size }: PutOptions): Promise<StoredObject> {
    const target = this.file(key);
    const temporary = path.join(this.incoming, randomUUID());
    // Which side failed first: the body's own error is rethrown unchanged, the disk's is mapped.
    let first: 'body' | 'disk' | undefined;
    body.once('error', () => (first ??= 'body'));
    body.once('close', () => {
      if (!body.readableEnded) first ??= 'body';
    });
    try {
      await fsp.mkdir(this.incoming, { recursive: true });
      // flush: the bytes reach the disk before the file is closed, so a record committed after
      // put() resolves never points at a file a power cut emptied.
      const writer = fs.createWriteStream(temporary, {
        flags: 'wx',
        flush: true,
        highWaterMark: CONTENT_BUFFER_BYTES,
      });
      writer.once('error', () => (first ??= 'disk'));
      await pipeline(body, writer);
      if (size !== undefined && writer.bytesWritten !== size) {
        throw new ObjectSizeMismatchError(key, size, String(writer.bytesWritten));
      }
      const folder = path.dirname(target);
      const createdFolder = await fsp.mkdir(folder, { recursive: true });
      await fsp.writeFile(`${target}.type`, contentType, { flush: true });
      await fsp.rename(temporary, target);
      await syncFoldersUp(folder, createdFolder);
      return { size: writer.bytesWritten, contentType };
    } catch (error) {
      await fsp.rm(temporary, { force: true }).catch(() => undefined);
      throw first === 'body' || error instanceof ObjectSizeMismatchError ? error : this.failure(`store ${key}`, error);
    }
  }

  /** Files have no digest of their own: callers hash what they write. */
  checksDigest(): boolean {
    return false;
  }

  async get(key: string): Promise<Readable> {
    const file = this.file(key);
    const handle = await fsp.open(file, 'r').catch((error: unknown) => {
      if (isMissing(error)) throw new ObjectNotFoundError(key);
      throw this.failure(`read ${key}`, error);
    });
    // 1 MiB reads: a sixteenth of the buffers (and garbage) of the 64 KiB default.
    return handle.createReadStream({ highWaterMark: 1024 * 1024 });
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
      if (isMissing(error)) return null;
      throw this.failure(`stat ${key}`, error);
    }
  }

  async delete(key: string): Promise<void> {
    const file = this.file(key);
    // unlink, not rm: rm({ force }) reports some refusals (EPERM) as ENOTDIR, which reads as "missing".
    const removals = [file, `${file}.type`].map((name) =>
      fsp.unlink(name).catch((error: unknown) => {
        if (!isMissing(error)) throw error;
      }),
    );
    await Promise.all(removals).catch((error: unknown) => {
      throw this.failure(`delete ${key}`, error);
    });
  }

  async deleteMany(keys: readonly string[]): Promise<void> {
    for (let start = 0; start < keys.length; start += PARALLEL_DELETES) {
      await Promise.all(keys.slice(start, start + PARALLEL_DELETES).map((key) => this.delete(key)));
    }
  }

  async deletePrefix(prefix: string): Promise<void> {
    for await (const key of this.list(prefix)) await this.delete(key);
  }

  /** Keys under the prefix (any depth) in code-unit (= S3's byte) order, like the S3 driver. */
  list(prefix: string): AsyncIterable<string> {
    return this.walk(this.objects, '', prefix);
  }

  private async *walk(folder: string, relative: string, prefix: string): AsyncIterable<string> {
    const entries = await fsp.readdir(folder, { withFileTypes: true }).catch((error: unknown) => {
      if (isMissing(error)) return [];
      throw this.failure(`list ${JSON.stringify(prefix)}`, error);
    });
    // A folder sorts as "name/": then the keys come out in the order of the full key strings.
    const sortName = (entry: fs.Dirent) => (entry.isDirectory() ? `${entry.name}/` : entry.name);
    entries.sort((a, b) => (sortName(a) < sortName(b) ? -1 : sortName(a) > sortName(b) ? 1 : 0));
    for (const entry of entries) {
      const key = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        // only folders that can hold a key with that prefix
        if (prefix.startsWith(`${key}/`) || `${key}/`.startsWith(prefix)) {
          yield* this.walk(path.join(folder, entry.name), key, prefix);
        }
      } else if (!entry.name.endsWith('.type') && key.startsWith(prefix)) {
        yield key;
      }
    }
  }

  /** Temporary files a killed process left; `before` precedes the start of every write still in progress. */
  async removeUnfinishedWrites(before: Date): Promise<number> {
    const unlessMissing = (error: unknown) => {
      if (!isMissing(error)) throw error;
      return undefined;
    };
    try {
      let removed = 0;
      for (const name of (await fsp.readdir(this.incoming).catch(unlessMissing)) ?? []) {
        const file = path.join(this.incoming, name);
        const stats = await fsp.stat(file).catch(unlessMissing);
        if (!stats || stats.mtime >= before) continue;
        // Gone meanwhile: its own write removed it.
        if (await fsp.unlink(file).then(() => true, unlessMissing)) removed++;
      }
      return removed;
    } catch (error) {
      throw this.failure('remove unfinished writes', error);
    }
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
