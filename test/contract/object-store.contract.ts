import { createHash, randomBytes } from 'node:crypto';
import { PassThrough, Readable, Transform } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import {
  ObjectDigestMismatchError,
  ObjectNotFoundError,
  ObjectSizeMismatchError,
  ObjectStoreUnavailableError,
  type ObjectStore,
} from '../../src/infra/object-store/object-store';
import { AppError } from '../../src/kernel/errors';

/** What a driver's test file hands the contract. */
export interface ContractSubject {
  store: ObjectStore;
  /** Keys of unfinished multipart uploads under `prefix`, for drivers that have such a thing. */
  incompleteUploads?: (prefix: string) => Promise<string[]>;
  /** Runs after the suite (close connections, remove temporary folders). */
  close?: () => Promise<void>;
}

const MiB = 1024 * 1024;

export async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks);
}

export async function collect(keys: AsyncIterable<string>): Promise<string[]> {
  const all: string[] = [];
  for await (const key of keys) all.push(key);
  return all;
}

const md5 = (bytes: Buffer) => createHash('md5').update(bytes).digest('hex');

/** `size` random bytes in 64 KiB chunks, produced on demand; `digest()` is their md5 once read. */
function generated(size: number, chunkSize = 64 * 1024) {
  const hash = createHash('md5');
  async function* produce() {
    for (let sent = 0; sent < size; sent += chunkSize) {
      const chunk = randomBytes(Math.min(chunkSize, size - sent));
      hash.update(chunk);
      yield chunk;
    }
  }
  return { stream: Readable.from(produce(), { objectMode: false }), digest: () => hash.digest('hex') };
}

/** `size` bytes, then `error` (thrown by the source itself, as a parser or size limit would). */
function failingAfter(size: number, error: Error): Readable {
  async function* produce() {
    for (let sent = 0; sent < size; sent += 64 * 1024) yield randomBytes(Math.min(64 * 1024, size - sent));
    throw error;
  }
  return Readable.from(produce(), { objectMode: false });
}

class SourceBroke extends Error {
  constructor() {
    super('the source stream broke');
    this.name = 'SourceBroke';
  }
}

/**
 * The behaviour every ObjectStore driver must share. Each test works under its own random prefix,
 * so a shared bucket or folder is fine.
 */
export function describeObjectStoreContract(name: string, factory: () => Promise<ContractSubject>): void {
  describe(`${name} (ObjectStore contract)`, () => {
    let subject: ContractSubject;
    let store: ObjectStore;
    let prefix: string;
    const key = (name: string) => `${prefix}/${name}`;

    beforeAll(async () => {
      subject = await factory();
      store = subject.store;
    }, 30_000);

    afterAll(async () => {
      await subject?.close?.();
    });

    beforeEach(() => {
      prefix = `t-${randomBytes(4).toString('hex')}`;
    });

    /** Nothing under the test's prefix: no object, and no half-finished upload. */
    async function expectNothingLeft(at = prefix) {
      expect(await collect(store.list(at))).toEqual([]);
      if (subject.incompleteUploads) expect(await subject.incompleteUploads(at)).toEqual([]);
    }

    it('answers ping', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });

    it('stores and returns bytes with their content type', async () => {
      const bytes = randomBytes(1000);
      const stored = await store.put(key('a.bin'), Readable.from([bytes]), { contentType: 'application/octet-stream' });
      expect(stored).toEqual({ size: 1000, contentType: 'application/octet-stream' });
      expect(md5(await readAll(await store.get(key('a.bin'))))).toBe(md5(bytes));
      expect(await store.stat(key('a.bin'))).toEqual({ size: 1000, contentType: 'application/octet-stream' });
    });

    it('keeps the content type as given, parameters included', async () => {
      const contentType = 'application/vnd.islet.device-log+json; charset=utf-8';
      await store.put(key('log.json'), Readable.from([Buffer.from('{"a":1}')]), { contentType });
      expect(await store.stat(key('log.json'))).toEqual({ size: 7, contentType });
    });

    it('stores an empty object', async () => {
      const stored = await store.put(key('empty'), Readable.from([], { objectMode: false }), {
        contentType: 'text/plain',
      });
      expect(stored).toEqual({ size: 0, contentType: 'text/plain' });
      expect(await readAll(await store.get(key('empty')))).toEqual(Buffer.alloc(0));
      expect(await store.stat(key('empty'))).toEqual({ size: 0, contentType: 'text/plain' });
      expect(await collect(store.list(prefix))).toEqual([key('empty')]);
    });

    it('streams a 20 MiB object in (several S3 parts) and back out unchanged', async () => {
      const source = generated(20 * MiB);
      const stored = await store.put(key('big.bin'), source.stream, { contentType: 'application/x-big' });
      expect(stored).toEqual({ size: 20 * MiB, contentType: 'application/x-big' });
      expect(await store.stat(key('big.bin'))).toEqual({ size: 20 * MiB, contentType: 'application/x-big' });
      const hash = createHash('md5');
      let size = 0;
      for await (const chunk of await store.get(key('big.bin'))) {
        hash.update(chunk as Buffer);
        size += (chunk as Buffer).length;
      }
      expect(size).toBe(20 * MiB);
      expect(hash.digest('hex')).toBe(source.digest());
      if (subject.incompleteUploads) expect(await subject.incompleteUploads(prefix)).toEqual([]);
    }, 60_000);

    it('streams a 20 MiB object of announced size and MD5 (one S3 request) and back out unchanged', async () => {
      const bytes = randomBytes(20 * MiB);
      const chunks = Array.from({ length: 20 * 16 }, (_, i) => bytes.subarray(i * 64 * 1024, (i + 1) * 64 * 1024));
      const stored = await store.put(key('known.bin'), Readable.from(chunks), {
        contentType: 'application/x-known',
        size: bytes.length,
        md5: createHash('md5').update(bytes).digest('base64'),
      });
      expect(stored).toEqual({ size: 20 * MiB, contentType: 'application/x-known' });
      expect(md5(await readAll(await store.get(key('known.bin'))))).toBe(md5(bytes));
      expect(await store.stat(key('known.bin'))).toEqual({ size: 20 * MiB, contentType: 'application/x-known' });
      if (subject.incompleteUploads) expect(await subject.incompleteUploads(prefix)).toEqual([]);
    }, 60_000);

    it('refuses a body longer or shorter than its announced size, storing nothing', async () => {
      const bytes = randomBytes(100 * 1024);
      const digest = createHash('md5').update(bytes).digest('base64');
      for (const size of [bytes.length - 1, bytes.length + 1]) {
        const error = await store
          .put(key('sized'), Readable.from([bytes]), { contentType: 'text/plain', size, md5: digest })
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ObjectSizeMismatchError);
        expect((error as Error).message).toContain(`not the announced ${size}`);
        await expectNothingLeft();
      }
    });

    it('refuses a body of another MD5 wherever it says it checks digests, storing nothing', async () => {
      const bytes = randomBytes(256 * 1024);
      const right = createHash('md5').update(bytes).digest('base64');
      const wrong = createHash('md5').update('other bytes').digest('base64');
      for (const options of [{ size: bytes.length }, { md5: wrong }, { size: bytes.length, md5: wrong }]) {
        if (!store.checksDigest(options)) continue;
        const error = await store
          .put(key('checked'), Readable.from([bytes]), { contentType: 'text/plain', ...options })
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ObjectDigestMismatchError);
        await expectNothingLeft();
      }
      // The same body with its own digest is stored, whatever the store checks.
      await store.put(key('checked'), Readable.from([bytes]), { contentType: 'text/plain', md5: right });
      expect(md5(await readAll(await store.get(key('checked'))))).toBe(md5(bytes));
    });

    it('stores an object of exactly 8 MiB (one full S3 part) and of 8 MiB + 1 byte', async () => {
      for (const size of [8 * MiB, 8 * MiB + 1]) {
        const source = generated(size, 1024 * 1024);
        await store.put(key(`edge-${size}`), source.stream, { contentType: 'application/octet-stream' });
        const back = await readAll(await store.get(key(`edge-${size}`)));
        expect(back.length).toBe(size);
        expect(md5(back)).toBe(source.digest());
      }
    }, 60_000);

    it('overwrites an existing key, content type included', async () => {
      await store.put(key('doc'), Readable.from([Buffer.from('first version')]), { contentType: 'text/plain' });
      await store.put(key('doc'), Readable.from([Buffer.from('<p>2</p>')]), { contentType: 'text/html' });
      expect((await readAll(await store.get(key('doc')))).toString()).toBe('<p>2</p>');
      expect(await store.stat(key('doc'))).toEqual({ size: 8, contentType: 'text/html' });
      expect(await collect(store.list(prefix))).toEqual([key('doc')]);
    });

    it('answers null to stat and ObjectNotFoundError to get for a missing key', async () => {
      expect(await store.stat(key('missing'))).toBeNull();
      const error = await store.get(key('missing')).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ObjectNotFoundError);
      expect((error as ObjectNotFoundError).key).toBe(key('missing'));
    });

    it('deletes idempotently', async () => {
      await store.put(key('gone'), Readable.from([Buffer.from('x')]), { contentType: 'text/plain' });
      await store.delete(key('gone'));
      expect(await store.stat(key('gone'))).toBeNull();
      await expect(store.get(key('gone'))).rejects.toBeInstanceOf(ObjectNotFoundError);
      await expect(store.delete(key('gone'))).resolves.toBeUndefined();
      await expect(store.delete(key('never/was/here'))).resolves.toBeUndefined();
    });

    it('lists every key under a prefix, at any depth, in byte order', async () => {
      const keys = ['b', 'a/z', 'a-b/1', 'a/b/c', 'A', 'a.txt', 'ab/2', '_x', '9'].map(key);
      for (const k of keys) await store.put(k, Readable.from([Buffer.from(k)]), { contentType: 'text/plain' });
      const sorted = [...keys].sort(); // code-unit order, = byte order for these ASCII keys
      expect(await collect(store.list(prefix))).toEqual(sorted);
      expect(await collect(store.list(`${prefix}/`))).toEqual(sorted);
      // a prefix is a string prefix, not a folder
      expect(await collect(store.list(key('a')))).toEqual(
        [key('a-b/1'), key('a.txt'), key('a/b/c'), key('a/z'), key('ab/2')].sort(),
      );
      expect(await collect(store.list(key('a/')))).toEqual([key('a/b/c'), key('a/z')]);
      expect(await collect(store.list(key('nothing-here/')))).toEqual([]);
    });

    it('deleteMany removes exactly the named keys; missing ones are no error', async () => {
      const keys = ['a/1', 'a/2', 'a/3', 'b/4'].map(key);
      for (const k of keys) await store.put(k, Readable.from([Buffer.from(k)]), { contentType: 'text/plain' });
      await store.deleteMany([key('a/1'), key('b/4'), key('never/there')]);
      expect(await collect(store.list(prefix))).toEqual([key('a/2'), key('a/3')]);
      await expect(store.deleteMany([])).resolves.toBeUndefined();
      await expect(store.deleteMany(['../escape'])).rejects.toThrow(/unsafe object key/);
      expect(await collect(store.list(prefix))).toEqual([key('a/2'), key('a/3')]);
    });

    it('deletePrefix removes that prefix and nothing else', async () => {
      const keys = ['a/1', 'a/deep/2', 'a-b/3', 'ab/4', 'b/5'].map(key);
      for (const k of keys) await store.put(k, Readable.from([Buffer.from(k)]), { contentType: 'text/plain' });
      await store.deletePrefix(key('a/'));
      expect(await collect(store.list(prefix))).toEqual([key('a-b/3'), key('ab/4'), key('b/5')]);
      expect(await store.stat(key('a/1'))).toBeNull();
      await store.deletePrefix(key('nothing-here/'));
      await store.deletePrefix(`${prefix}/`);
      expect(await collect(store.list(prefix))).toEqual([]);
    });

    it('lists and deletes across many pages (drivers that page get a small page size here)', async () => {
      const keys = Array.from({ length: 25 }, (_, i) => key(`many/${String(i).padStart(2, '0')}`));
      await Promise.all(
        keys.map((k) => store.put(k, Readable.from([Buffer.from('1')]), { contentType: 'text/plain' })),
      );
      await store.put(key('other'), Readable.from([Buffer.from('2')]), { contentType: 'text/plain' });
      expect(await collect(store.list(key('many/')))).toEqual(keys);
      await store.deleteMany(keys.slice(0, 22));
      expect(await collect(store.list(key('many/')))).toEqual(keys.slice(22));
      await store.deletePrefix(key('many/'));
      expect(await collect(store.list(prefix))).toEqual([key('other')]);
    });

    describe('a failing body stores nothing', () => {
      it('rejects with the error of the source stream, before the first part is full', async () => {
        const broke = new SourceBroke();
        const error = await store
          .put(key('small'), failingAfter(100 * 1024, broke), { contentType: 'text/plain' })
          .catch((e: unknown) => e);
        expect(error).toBe(broke);
        expect(await store.stat(key('small'))).toBeNull();
        await expectNothingLeft();
      });

      it('rejects with the error of the source stream after several parts, leaving no upload behind', async () => {
        const broke = new SourceBroke();
        const error = await store
          .put(key('large'), failingAfter(17 * MiB, broke), { contentType: 'application/octet-stream' })
          .catch((e: unknown) => e);
        expect(error).toBe(broke);
        expect(await store.stat(key('large'))).toBeNull();
        await expectNothingLeft();
      }, 60_000);

      it('rejects with the error of the source stream when the body has an announced size', async () => {
        const broke = new SourceBroke();
        const size = 12 * MiB;
        const error = await store
          .put(key('announced'), failingAfter(9 * MiB, broke), {
            contentType: 'text/plain',
            size,
            md5: 'x'.repeat(22) + '==',
          })
          .catch((e: unknown) => e);
        expect(error).toBe(broke);
        expect(await store.stat(key('announced'))).toBeNull();
        await expectNothingLeft();
      }, 60_000);

      it('passes an AppError thrown by an upstream Transform through unchanged', async () => {
        const tooLarge = new AppError('TOO_LARGE', 'the upload is larger than 9 MiB');
        let seen = 0;
        const limit = new Transform({
          transform(chunk: Buffer, _encoding, callback) {
            seen += chunk.length;
            callback(seen > 9 * MiB ? tooLarge : null, chunk);
          },
        });
        generated(12 * MiB).stream.pipe(limit);
        const error = await store.put(key('limited'), limit, { contentType: 'text/plain' }).catch((e: unknown) => e);
        expect(error).toBe(tooLarge);
        await expectNothingLeft();
      }, 60_000);

      it('stores nothing when the body is destroyed mid-way', async () => {
        const body = new PassThrough();
        const putting = store.put(key('cut'), body, { contentType: 'text/plain' });
        const pump = (async () => {
          for (let i = 0; i < 160; i++) {
            if (!body.write(randomBytes(64 * 1024))) await new Promise((resolve) => body.once('drain', resolve));
          }
          body.destroy(); // 10 MiB in, no error: the client went away
        })();
        await expect(putting).rejects.toThrow();
        await pump;
        await expectNothingLeft();
      }, 60_000);

      it('keeps the previous version of the key', async () => {
        await store.put(key('kept'), Readable.from([Buffer.from('version 1')]), { contentType: 'text/plain' });
        await expect(
          store.put(key('kept'), failingAfter(9 * MiB, new SourceBroke()), { contentType: 'text/html' }),
        ).rejects.toBeInstanceOf(SourceBroke);
        expect((await readAll(await store.get(key('kept')))).toString()).toBe('version 1');
        expect(await store.stat(key('kept'))).toEqual({ size: 9, contentType: 'text/plain' });
        if (subject.incompleteUploads) expect(await subject.incompleteUploads(prefix)).toEqual([]);
      }, 60_000);
    });

    it('refuses unsafe keys without touching the store', async () => {
      for (const bad of ['', '/abs', '../up', 'a/../b', 'a//b', 'a/./b', 'a/', 'b\\s', '%41', 'q?x', 't\tb']) {
        const body = Readable.from([Buffer.from('x')]);
        await expect(store.put(bad, body, { contentType: 'text/plain' })).rejects.toThrow(/unsafe object key/);
        await expect(store.get(bad)).rejects.toThrow(/unsafe object key/);
        await expect(store.stat(bad)).rejects.not.toBeInstanceOf(ObjectStoreUnavailableError);
      }
    });
  });
}
