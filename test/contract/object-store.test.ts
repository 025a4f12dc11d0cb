import { createHash, randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { Client } from 'minio';
import { afterAll, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { loadConfig, type S3Settings } from '../../src/config';
import { createObjectStore } from '../../src/infra/object-store';
import { FilesystemStore } from '../../src/infra/object-store/filesystem-store';
import { MeteredStore } from '../../src/infra/object-store/metered-store';
import {
  ObjectDigestMismatchError,
  ObjectStoreUnavailableError,
  type ObjectStore,
} from '../../src/infra/object-store/object-store';
import { S3Store } from '../../src/infra/object-store/s3-store';
import { createMinioClient } from '../../src/infra/object-store/s3-options';
import { describeWithS3 } from '../support/describe-with-s3';
import { md5 } from '../support/content';
import { startS3Outage, type StoppableS3 } from '../support/s3-outage';
import { randomBucket, sharedS3Settings } from '../support/s3-server';
import { startFaultProxy, type Fault, type FaultProxy, type RequestKind } from '../support/s3-fault-proxy';
import { collect, readAll, describeObjectStoreContract } from './object-store.contract';

/**
 * Keys with every character S3's canonical URI encodes that encodeURIComponent does not (`!'()*`),
 * and others that request paths and listings must carry through: spaces, `+` (a space in form
 * encoding), `=`, `&`, `~`, and letters outside ASCII.
 */
const UNUSUAL_KEYS = [
  "all/!'()* +=&~é日",
  "bang!/quote'/paren(s)/star*",
  'plus+equals=amp&tilde~',
  'unicode/é/日本/Ünïcödé',
  'with space/and  two',
];

/** Byte order of the UTF-8 keys, as S3 lists them. */
const byteOrder = (keys: string[]) => [...keys].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));

/** Every operation of the store with UNUSUAL_KEYS, for each driver: they must agree. */
function describeUnusualKeys(name: string, factory: () => Promise<{ store: ObjectStore; close: () => Promise<void> }>) {
  describe(`${name} with keys of reserved and non-ASCII characters`, () => {
    let subject: { store: ObjectStore; close: () => Promise<void> };
    beforeAll(async () => {
      subject = await factory();
    });
    afterAll(() => subject?.close());

    it('puts (streamed and buffered), stats, gets, lists and deletes each of them', async () => {
      const { store } = subject;
      const prefix = `keys-${randomBytes(4).toString('hex')}`;
      const keys = UNUSUAL_KEYS.map((key) => `${prefix}/${key}`);
      for (const key of keys) {
        const bytes = Buffer.from(`bytes of ${key}`);
        // size and MD5 known: one request the S3 driver signs itself
        await store.put(key, Readable.from([bytes]), {
          contentType: 'text/plain',
          size: bytes.length,
          md5: md5(bytes),
        });
        expect(await store.stat(key)).toEqual({ size: bytes.length, contentType: 'text/plain' });
        expect((await readAll(await store.get(key))).toString()).toBe(`bytes of ${key}`);
        // size unknown: buffered and sent by minio
        await store.put(key, Readable.from([Buffer.from(`again ${key}`)]), { contentType: 'text/csv' });
        expect((await readAll(await store.get(key))).toString()).toBe(`again ${key}`);
      }
      expect(await collect(store.list(prefix))).toEqual(byteOrder(keys));
      expect(await collect(store.list(`${prefix}/bang!/quote'`))).toEqual([`${prefix}/bang!/quote'/paren(s)/star*`]);
      expect(await collect(store.list(`${prefix}/unicode/é`))).toEqual([`${prefix}/unicode/é/日本/Ünïcödé`]);
      await store.delete(keys[0]);
      expect(await store.stat(keys[0])).toBeNull();
      await store.deleteMany(keys.slice(1, 3));
      expect(await collect(store.list(prefix))).toEqual(byteOrder(keys.slice(3)));
      await store.deletePrefix(`${prefix}/`);
      expect(await collect(store.list(prefix))).toEqual([]);
    });
  });
}

describeObjectStoreContract('FilesystemStore', async () => {
  const root = await fsp.mkdtemp(path.join(os.tmpdir(), 'islet-objects-'));
  return { store: new FilesystemStore(root), close: () => fsp.rm(root, { recursive: true, force: true }) };
});

describeUnusualKeys('FilesystemStore', async () => {
  const root = await fsp.mkdtemp(path.join(os.tmpdir(), 'islet-objects-'));
  return { store: new FilesystemStore(root), close: () => fsp.rm(root, { recursive: true, force: true }) };
});

describe('FilesystemStore failures', () => {
  it('maps a disk failure to ObjectStoreUnavailableError but rethrows the body error unchanged', async () => {
    const root = await fsp.mkdtemp(path.join(os.tmpdir(), 'islet-objects-'));
    try {
      const store = new FilesystemStore(root);
      // "objects" is a file: every write below it fails with ENOTDIR/EEXIST
      await fsp.writeFile(path.join(root, 'objects'), 'in the way');
      const put = store.put('a/b', Readable.from([Buffer.from('x')]), { contentType: 'text/plain' });
      await expect(put).rejects.toBeInstanceOf(ObjectStoreUnavailableError);
      await expect(put).rejects.toThrow(`filesystem store at ${root} failed to store a/b`);
      const broke = new Error('body broke');
      const failing = Readable.from(
        (async function* () {
          yield Buffer.from('x');
          throw broke;
        })(),
      );
      await expect(new FilesystemStore(path.join(root, 'ok')).put('k', failing, { contentType: 'x/y' })).rejects.toBe(
        broke,
      );
    } finally {
      await fsp.rm(root, { recursive: true, force: true });
    }
  });
});

describe('FilesystemStore durability', () => {
  it('flushes the folder of each new object and every folder whose entry it created', async () => {
    const root = await fsp.mkdtemp(path.join(os.tmpdir(), 'islet-objects-'));
    const synced: string[] = [];
    const open = fsp.open.bind(fsp);
    const spy = jest.spyOn(fsp, 'open').mockImplementation(async (file, flags, ...rest) => {
      if (flags === 'r') synced.push(path.relative(root, String(file)) || '.');
      return open(file, flags, ...rest);
    });
    try {
      const store = new FilesystemStore(root);
      const put = async (key: string) => {
        synced.length = 0;
        await store.put(key, Readable.from([Buffer.from('x')]), { contentType: 'text/plain' });
        return [...synced];
      };
      expect(await put('blobs/u1/b1/k1')).toEqual([
        'objects/blobs/u1/b1',
        'objects/blobs/u1',
        'objects/blobs',
        'objects',
        '.',
      ]);
      expect(await put('blobs/u1/b2/k2')).toEqual(['objects/blobs/u1/b2', 'objects/blobs/u1']);
      expect(await put('blobs/u1/b2/k3')).toEqual(['objects/blobs/u1/b2']);
    } finally {
      spy.mockRestore();
      await fsp.rm(root, { recursive: true, force: true });
    }
  });
});

describe('createObjectStore', () => {
  it('returns the S3 store when S3_ENDPOINT is set, else the filesystem store, metered, without any I/O', () => {
    const s3 = createObjectStore(
      loadConfig({
        NODE_ENV: 'test',
        DATA_DIR: os.tmpdir(),
        S3_ENDPOINT: 'http://127.0.0.1:1',
        S3_ACCESS_KEY: 'a:b',
        S3_SECRET_KEY: 'secret',
        S3_BUCKET: 'islet-blobs',
      }),
    );
    expect(s3).toBeInstanceOf(MeteredStore);
    expect((s3 as MeteredStore).driver).toBeInstanceOf(S3Store);
    expect(s3.kind).toBe('s3');
    ((s3 as MeteredStore).driver as S3Store).close();
    const local = createObjectStore(loadConfig({ NODE_ENV: 'test', DATA_DIR: os.tmpdir() }));
    expect((local as MeteredStore).driver).toBeInstanceOf(FilesystemStore);
    expect(local.kind).toBe('filesystem');
  });

  it('refuses S3 settings that cannot work, at construction', () => {
    const settings = settingsFor('http://127.0.0.1:9000');
    expect(() => new S3Store({ ...settings, bucket: 'Not_Valid' })).toThrow(/S3 bucket name "Not_Valid" is invalid/);
    expect(() => new S3Store({ ...settings, endpoint: 'http://127.0.0.1:9000/prefix' })).toThrow(
      /must not have a path/,
    );
    expect(() => new S3Store({ ...settings, endpoint: 'ftp://127.0.0.1' })).toThrow(/http:\/\/ or https:\/\//);
  });
});

/**
 * Keys of the multipart uploads open under `prefix`. Not minio's listIncompleteUploads: it sends
 * an empty `delimiter=`, which Swift's s3api (2.30) answers with the prefix as a common prefix
 * instead of the uploads.
 */
async function openUploads(client: Client, bucket: string, prefix: string): Promise<string[]> {
  const res = await client.makeRequestAsync({
    method: 'GET',
    bucketName: bucket,
    query: `uploads&max-uploads=1000&prefix=${encodeURIComponent(prefix)}`,
  });
  const xml = (await readAll(res)).toString();
  expect(xml).toContain('<ListMultipartUploadsResult');
  expect(xml).not.toContain('<IsTruncated>true</IsTruncated>');
  return [...xml.matchAll(/<Upload>[\s\S]*?<Key>([^<]*)<\/Key>/g)].map((match) => match[1]);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves with the rejection of `promise`. */
async function failure(promise: Promise<unknown>): Promise<{ error: unknown }> {
  try {
    await promise;
  } catch (error) {
    return { error };
  }
  throw new Error('expected a rejection');
}

/** The failure is the store's "unreachable" one, and says why (`reason`). */
function expectUnavailable({ error }: { error: unknown }, endpoint: string, reason: string | RegExp) {
  expect(error).toBeInstanceOf(ObjectStoreUnavailableError);
  const message = (error as Error).message;
  expect(message).toContain(`object store at ${endpoint} is unreachable: `);
  if (typeof reason === 'string') expect(message).toContain(reason);
  else expect(message).toMatch(reason);
}

/** A local HTTP server playing a broken S3 endpoint. */
async function fakeEndpoint(handler: http.RequestListener): Promise<{ endpoint: string; close: () => Promise<void> }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

const settingsFor = (endpoint: string): S3Settings => ({
  endpoint,
  accessKey: 'islet:tester',
  secretKey: 'testing-secret',
  bucket: 'islet-fake',
  region: 'us-east-1',
});

describeWithS3('S3Store against OpenStack Swift (s3api)', () => {
  describeObjectStoreContract('S3Store', async () => {
    const settings = sharedS3Settings()!;
    const store = new S3Store(settings, { pageSize: 10 });
    const client = createMinioClient(settings);
    return {
      store,
      incompleteUploads: (prefix) => openUploads(client, settings.bucket, prefix),
      close: async () => store.close(),
    };
  });

  it('says it checks digests exactly when a body goes in one request with Content-MD5', () => {
    const store = new S3Store(sharedS3Settings()!);
    const digest = md5('bytes');
    expect(store.checksDigest({ size: 5, md5: digest })).toBe(true);
    // Parts carry their own MD5s; the whole body's is never checked by the server.
    expect(store.checksDigest({ md5: digest })).toBe(false);
    expect(store.checksDigest({ size: 5 })).toBe(false);
    expect(new FilesystemStore(os.tmpdir()).checksDigest()).toBe(false);
    store.close();
  });

  it('sees an open multipart upload (so the contract\'s "no upload left" checks can fail)', async () => {
    const settings = sharedS3Settings()!;
    const store = new S3Store(settings);
    await store.ensureBucket();
    store.close();
    const client = createMinioClient(settings);
    const uploadId = await client.initiateNewMultipartUpload(settings.bucket, 'open/upload', {});
    expect(await openUploads(client, settings.bucket, 'open/')).toEqual(['open/upload']);
    await client.abortMultipartUpload(settings.bucket, 'open/upload', uploadId);
    expect(await openUploads(client, settings.bucket, 'open/')).toEqual([]);
  });

  describe('failures', () => {
    const stores: S3Store[] = [];
    const storeFor = (settings: S3Settings, options?: ConstructorParameters<typeof S3Store>[1]) => {
      const store = new S3Store(settings, options);
      stores.push(store);
      return store;
    };
    afterAll(() => stores.forEach((store) => store.close()));

    describe('a server that stops', () => {
      let server: StoppableS3;
      beforeAll(async () => {
        server = await startS3Outage();
      });
      afterAll(async () => {
        await server?.destroy();
      });

      it('makes every operation reject with ObjectStoreUnavailableError (connection refused), and recovers', async () => {
        const { endpoint } = server.settings;
        const store = storeFor(server.settings);
        await store.ping(); // creates the bucket
        await store.put('kept/one', Readable.from([Buffer.from('still here')]), { contentType: 'text/plain' });
        // No kept-alive connection: the refusals below must come from new connections.
        store.close();
        await server.stop();

        const refused = 'ECONNREFUSED';
        expectUnavailable(
          await failure(store.ping()),
          endpoint,
          new RegExp(`check bucket ${server.settings.bucket} failed: .*${refused}`),
        );
        expectUnavailable(
          await failure(store.get('kept/one')),
          endpoint,
          new RegExp(`get kept/one failed: .*${refused}`),
        );
        expectUnavailable(
          await failure(store.stat('kept/one')),
          endpoint,
          new RegExp(`stat kept/one failed: .*${refused}`),
        );
        expectUnavailable(
          await failure(store.delete('kept/one')),
          endpoint,
          new RegExp(`delete kept/one failed: .*${refused}`),
        );
        const listing = store.list('kept/')[Symbol.asyncIterator]().next();
        expectUnavailable(await failure(listing), endpoint, new RegExp(`list "kept/" failed: .*${refused}`));
        const body = Readable.from([Buffer.from('lost')]);
        const put = store.put('kept/two', body, { contentType: 'text/plain' });
        expectUnavailable(await failure(put), endpoint, new RegExp(`put kept/two failed: .*${refused}`));
        // a store created while the server is down fails the same way (its bucket check fails)
        const fresh = storeFor(server.settings).ping();
        expectUnavailable(
          await failure(fresh),
          endpoint,
          new RegExp(`check bucket ${server.settings.bucket} failed: .*${refused}`),
        );

        await server.restart();
        await store.ping();
        expect((await readAll(await store.get('kept/one'))).toString()).toBe('still here');
      }, 60_000);
    });

    it('rejects at once, naming the refused connection, when nothing listens on the port', async () => {
      const probe = net.createServer();
      await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
      const { port } = probe.address() as net.AddressInfo;
      await new Promise((resolve) => probe.close(resolve));
      const endpoint = `http://127.0.0.1:${port}`;
      const store = storeFor(settingsFor(endpoint));
      expectUnavailable(await failure(store.ping()), endpoint, /check bucket islet-fake failed: .*ECONNREFUSED/);
      expectUnavailable(await failure(store.get('a/b')), endpoint, /check bucket islet-fake failed: .*ECONNREFUSED/);
      const body = Readable.from([Buffer.from('x')]);
      const put = store.put('a/b', body, { contentType: 'text/plain' });
      expectUnavailable(await failure(put), endpoint, /check bucket islet-fake failed: .*ECONNREFUSED/);
    });

    it('gives up on a server that accepts connections but never answers', async () => {
      const accepted: net.Socket[] = [];
      const silent = net.createServer((socket) => void accepted.push(socket));
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      const endpoint = `http://127.0.0.1:${(silent.address() as net.AddressInfo).port}`;
      try {
        const store = storeFor(settingsFor(endpoint), { idleTimeoutMs: 500 });
        expectUnavailable(await failure(store.ping()), endpoint, 'ETIMEDOUT: no answer within 500 ms');
        // one connection: a timeout is not a reason to try again
        expect(accepted).toHaveLength(1);
      } finally {
        accepted.forEach((socket) => socket.destroy());
        await new Promise((resolve) => silent.close(resolve));
      }
    });

    it('treats 5xx answers as unavailable, after retrying the 503s of requests it can send again', async () => {
      const requests: string[] = [];
      const fake = await fakeEndpoint((req, res) => {
        requests.push(`${req.method} ${req.url?.split('?')[0]}`);
        if (req.method === 'HEAD') return void res.writeHead(200).end(); // the bucket exists
        if (req.url?.includes('html')) {
          res.writeHead(502, { 'content-type': 'text/html' }).end('<html><body>Bad Gateway</body></html>');
          return;
        }
        res.writeHead(503, { 'content-type': 'application/xml' });
        res.end('<?xml version="1.0"?><Error><Code>ServiceUnavailable</Code><Message>Overloaded</Message></Error>');
      });
      try {
        const store = storeFor(settingsFor(fake.endpoint), { maxRetries: 2, retryWait: async () => undefined });
        const overloaded = 'ServiceUnavailable: Overloaded (HTTP 503)';
        expectUnavailable(await failure(store.get('a/b')), fake.endpoint, `get a/b failed: ${overloaded}`);
        expectUnavailable(await failure(store.get('html/page')), fake.endpoint, 'get html/page failed: HTTP502');
        const body = Readable.from([Buffer.from('x')]);
        const put = store.put('a/b', body, { contentType: 'text/plain' });
        expectUnavailable(await failure(put), fake.endpoint, `put a/b failed: ${overloaded}`);
        // 503s thrice (1 + maxRetries), the 502 once; the body of unknown size was in memory
        expect(requests).toEqual([
          'HEAD /islet-fake',
          ...Array(3).fill('GET /islet-fake/a/b'),
          'GET /islet-fake/html/page',
          ...Array(3).fill('PUT /islet-fake/a/b'),
        ]);
      } finally {
        await fake.close();
      }
    });

    it('errors the stream of get with ObjectStoreUnavailableError when the connection drops mid-body', async () => {
      const fake = await fakeEndpoint((req, res) => {
        if (req.method === 'HEAD') return void res.writeHead(200).end();
        res.writeHead(200, { 'content-length': String(1024 * 1024), 'content-type': 'application/octet-stream' });
        res.write(Buffer.alloc(64 * 1024), () => setTimeout(() => res.socket?.destroy(), 50));
      });
      try {
        const store = storeFor(settingsFor(fake.endpoint));
        const body = await store.get('a/b');
        expectUnavailable(await failure(readAll(body)), fake.endpoint, 'read a/b failed: ');
      } finally {
        await fake.close();
      }
    });

    it('cuts a download whose server stalls, but not one whose reader stalls', async () => {
      const fake = await fakeEndpoint((req, res) => {
        if (req.method === 'HEAD') return void res.writeHead(200).end();
        res.writeHead(200, { 'content-length': String(1024 * 1024), 'content-type': 'application/octet-stream' });
        if (req.url?.includes('server/stalls'))
          res.write(Buffer.alloc(64 * 1024)); // and then nothing
        else res.end(Buffer.alloc(1024 * 1024, 7));
      });
      try {
        const store = storeFor(settingsFor(fake.endpoint), { idleTimeoutMs: 300 });
        const stalled = await failure(readAll(await store.get('server/stalls')));
        expectUnavailable(stalled, fake.endpoint, 'read server/stalls failed: ETIMEDOUT: no data within 300 ms');

        const body = await store.get('reader/is-slow');
        // A slow client behind backpressure, the behaviour under test: longer than the 300 ms idle timeout.
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        // Digests: a deep equality of two 1 MiB buffers takes jest seconds of CPU.
        expect(md5(await readAll(body))).toBe(md5(Buffer.alloc(1024 * 1024, 7)));
      } finally {
        await fake.close();
      }
    });

    describe('a body of announced size and MD5, streamed in one request', () => {
      const MiB = 1024 * 1024;
      const announced = (bytes: Buffer) => ({
        contentType: 'application/octet-stream',
        size: bytes.length,
        md5: md5(bytes),
      });
      /**
       * `bytes` in 64 KiB chunks, with a pause of `pauseMs` once half of them have gone: a slow
       * client, which is what the tests using it are about, not a wait for something to happen.
       */
      function slowly(bytes: Buffer, pauseMs: number): Readable {
        return Readable.from(
          (async function* () {
            for (let offset = 0; offset < bytes.length; offset += 64 * 1024) {
              if (offset === Math.floor(bytes.length / 2 / (64 * 1024)) * 64 * 1024) await sleep(pauseMs);
              yield bytes.subarray(offset, offset + 64 * 1024);
            }
          })(),
        );
      }

      it('is refused by the server when its MD5 differs, and nothing is stored', async () => {
        const store = storeFor(sharedS3Settings()!);
        const bytes = randomBytes(3 * MiB);
        const wrong = { ...announced(bytes), md5: md5('other') };
        const error = await store.put('streamed/wrong', Readable.from([bytes]), wrong).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ObjectDigestMismatchError);
        expect(await store.stat('streamed/wrong')).toBeNull();
      });

      it('waits for a slow body without counting it against the idle deadline', async () => {
        const store = storeFor(sharedS3Settings()!, { idleTimeoutMs: 300 });
        const bytes = randomBytes(2 * MiB);
        await store.put('streamed/slow', slowly(bytes, 1_000), announced(bytes));
        expect(md5(await readAll(await store.get('streamed/slow')))).toBe(md5(bytes));
      });

      it('gives up on a server that stops taking bytes', async () => {
        // Reads the request head, then neither the body nor answers: the socket fills up.
        const fake = await fakeEndpoint((req, res) => {
          if (req.method === 'HEAD') return void res.writeHead(200).end();
          req.pause();
        });
        try {
          const store = storeFor(settingsFor(fake.endpoint), { idleTimeoutMs: 300 });
          const bytes = randomBytes(32 * MiB);
          const stalled = await failure(store.put('a/b', Readable.from([bytes]), announced(bytes)));
          expectUnavailable(
            stalled,
            fake.endpoint,
            'put a/b failed: ETIMEDOUT: the object store took no data for 300 ms',
          );
        } finally {
          await fake.close();
        }
      });

      it('removes what a server that ignores Content-MD5 stored, when its ETag shows other bytes', async () => {
        const requests: string[] = [];
        let encryption: Record<string, string> = {};
        const fake = await fakeEndpoint((req, res) => {
          requests.push(req.method!);
          if (req.method === 'HEAD') return void res.writeHead(200).end();
          if (req.method === 'DELETE') return void res.writeHead(204).end();
          const hash = createHash('md5');
          req.on('data', (chunk: Buffer) => hash.update(chunk));
          req.on('end', () => res.writeHead(200, { etag: `"${hash.digest('hex')}"`, ...encryption }).end());
        });
        try {
          const store = storeFor(settingsFor(fake.endpoint));
          const bytes = randomBytes(MiB);
          const wrong = { ...announced(bytes), md5: md5('other') };
          const error = await store.put('a/b', Readable.from([bytes]), wrong).catch((e: unknown) => e);
          expect(error).toBeInstanceOf(ObjectDigestMismatchError);
          expect(requests).toEqual(['HEAD', 'PUT', 'DELETE']);
          // The same bytes with their own digest: the ETag agrees, and nothing is removed.
          await store.put('a/c', Readable.from([bytes]), announced(bytes));
          expect(requests).toEqual(['HEAD', 'PUT', 'DELETE', 'PUT']);
          // KMS-encrypted objects have opaque ETags (AWS): no contradiction, Content-MD5 stands.
          encryption = { 'x-amz-server-side-encryption': 'aws:kms' };
          await store.put('a/d', Readable.from([bytes]), { ...announced(bytes), md5: announced(randomBytes(1)).md5 });
          expect(requests).toEqual(['HEAD', 'PUT', 'DELETE', 'PUT', 'PUT']);
        } finally {
          await fake.close();
        }
      });

      it('stops sending when the server refuses before the body is complete', async () => {
        let received = 0;
        const fake = await fakeEndpoint((req, res) => {
          if (req.method === 'HEAD') return void res.writeHead(200).end();
          req.on('data', (chunk: Buffer) => (received += chunk.length));
          res.writeHead(403, { 'content-type': 'application/xml' });
          res.end('<?xml version="1.0"?><Error><Code>AccessDenied</Code><Message>No writes here</Message></Error>');
        });
        try {
          const store = storeFor(settingsFor(fake.endpoint));
          const bytes = randomBytes(64 * MiB);
          const refused = await failure(store.put('a/b', slowly(bytes, 200), announced(bytes)));
          expect(refused.error).toBeInstanceOf(ObjectStoreUnavailableError);
          expect((refused.error as Error).message).toMatch(/refused to put a\/b: AccessDenied: No writes here/);
          expect(received).toBeLessThan(bytes.length);
        } finally {
          await fake.close();
        }
      });
    });

    it('reports refused credentials as unavailable, naming the reason', async () => {
      const settings = { ...sharedS3Settings()!, secretKey: 'not-the-secret' };
      const { error } = await failure(storeFor(settings).ping());
      expect(error).toBeInstanceOf(ObjectStoreUnavailableError);
      expect((error as Error).message).toMatch(
        new RegExp(`^object store at ${settings.endpoint} refused to check bucket islet-test-\\w+: \\w+`),
      );
    });
  });

  describeUnusualKeys('S3Store', async () => {
    const store = new S3Store(sharedS3Settings()!, { pageSize: 2 });
    return { store, close: async () => store.close() };
  });

  describe('behind a proxy that throttles and cuts connections', () => {
    const MiB = 1024 * 1024;
    const token = 'FQoGZXIvYXdzEJr//////////wEaDGV4YW1wbGUrdG9rZW49';
    const maxRetries = 3;
    let proxy: FaultProxy;
    let store: S3Store;
    /** The backoffs the store asked for, instead of sleeping them. */
    const waits: number[] = [];

    beforeAll(async () => {
      proxy = await startFaultProxy(sharedS3Settings()!.endpoint);
      store = storeThrough(proxy, sharedS3Settings()!);
      await store.put('kept', Readable.from([Buffer.from('kept bytes')]), { contentType: 'text/plain' });
    });
    afterAll(async () => {
      store?.close();
      await proxy?.close();
    });
    beforeEach(() => {
      proxy.reset();
      waits.length = 0;
    });

    function storeThrough(faults: FaultProxy, settings: S3Settings): S3Store {
      return new S3Store(
        { ...settings, endpoint: faults.endpoint, sessionToken: token },
        { partSize: 5 * MiB, maxRetries, retryBaseDelayMs: 100, retryWait: async (ms) => void waits.push(ms) },
      );
    }

    /** Each backoff drawn below its doubling ceiling (100, 200, 400 ms). */
    function expectBackoffs(count: number) {
      expect(waits).toHaveLength(count);
      waits.forEach((ms, retry) => {
        expect(ms).toBeGreaterThanOrEqual(0);
        expect(ms).toBeLessThan(100 * 2 ** retry);
      });
    }

    const bodyOf = (size: number) => Buffer.alloc(size, 'x');

    const replayable: [RequestKind, () => Promise<unknown>, number][] = [
      ['get', async () => expect((await readAll(await store.get('kept'))).toString()).toBe('kept bytes'), 1],
      ['stat', async () => expect(await store.stat('kept')).toEqual({ size: 10, contentType: 'text/plain' }), 1],
      ['list', async () => expect(await collect(store.list('kep'))).toEqual(['kept']), 1],
      ['check bucket', () => store.ping(), 1],
      [
        'delete',
        async () => {
          await store.put('doomed', Readable.from([Buffer.from('x')]), { contentType: 'text/plain' });
          await store.delete('doomed');
          expect(await store.stat('doomed')).toBeNull();
        },
        1,
      ],
      [
        'delete many',
        async () => {
          await store.put('doomed/1', Readable.from([Buffer.from('x')]), { contentType: 'text/plain' });
          await store.deleteMany(['doomed/1', 'doomed/2']);
          expect(await collect(store.list('doomed/'))).toEqual([]);
        },
        1,
      ],
      [
        // a body of unknown size: buffered in memory, so sent again as it was
        'put',
        async () => {
          await store.put('buffered', Readable.from([Buffer.from('in memory')]), { contentType: 'text/plain' });
          expect((await readAll(await store.get('buffered'))).toString()).toBe('in memory');
        },
        1,
      ],
      [
        // two parts; the faults hit the first, whose buffer is sent again
        'upload part',
        async () => {
          await store.put('parts', Readable.from([bodyOf(5 * MiB + 1)]), { contentType: 'application/octet-stream' });
          expect((await readAll(await store.get('parts'))).equals(bodyOf(5 * MiB + 1))).toBe(true);
        },
        2,
      ],
    ];

    describe.each<Fault>(['slow-down', 'reset'])('answering with %s', (fault) => {
      it.each(replayable)('retries %s until it succeeds', async (kind, operation, requests) => {
        proxy.fail(kind, fault, 2);
        await operation();
        expect(proxy.attempts(kind)).toBe(requests + 2);
        expectBackoffs(2);
      });

      it('never sends a streamed body twice: the caller gets ObjectStoreUnavailableError', async () => {
        const bytes = randomBytes(256 * 1024);
        const announced = {
          contentType: 'text/plain',
          size: bytes.length,
          md5: md5(bytes),
        };
        proxy.fail('put', fault, 1);
        const { error } = await failure(store.put('streamed', Readable.from([bytes]), announced));
        expect(error).toBeInstanceOf(ObjectStoreUnavailableError);
        expect((error as Error).message).toMatch(
          fault === 'slow-down'
            ? /put streamed failed: SlowDown: Please reduce your request rate/
            : /put streamed failed: .*(ECONNRESET|EPIPE)/,
        );
        expect(proxy.attempts('put')).toBe(1);
        expect(waits).toEqual([]);
        expect(await store.stat('streamed')).toBeNull();
      });

      it('gives up after 1 + maxRetries attempts', async () => {
        proxy.fail('get', fault);
        const { error } = await failure(store.get('kept'));
        expect(error).toBeInstanceOf(ObjectStoreUnavailableError);
        expect((error as Error).message).toMatch(
          fault === 'slow-down' ? /get kept failed: SlowDown/ : /get kept failed: .*(ECONNRESET|socket hang up)/,
        );
        expect(proxy.attempts('get')).toBe(1 + maxRetries);
        expectBackoffs(maxRetries);
      });
    });

    it('retries starting a multipart upload after SlowDown, but not after a cut connection', async () => {
      proxy.fail('start upload', 'slow-down', 1);
      await store.put('started', Readable.from([bodyOf(5 * MiB + 1)]), { contentType: 'text/plain' });
      expect(proxy.attempts('start upload')).toBe(2);
      proxy.reset();
      proxy.fail('start upload', 'reset', 1);
      const { error } = await failure(
        store.put('not-started', Readable.from([bodyOf(5 * MiB + 1)]), { contentType: 'text/plain' }),
      );
      expect(error).toBeInstanceOf(ObjectStoreUnavailableError);
      expect(proxy.attempts('start upload')).toBe(1);
    });

    it('sends the session token, signed, on every kind of request, and Swift (tempauth) accepts them', async () => {
      const fresh = storeThrough(proxy, { ...sharedS3Settings()!, bucket: randomBucket() });
      try {
        await fresh.ping(); // checks, then creates the bucket
        const bytes = Buffer.from('streamed bytes');
        await fresh.put('t/streamed', Readable.from([bytes]), {
          contentType: 'text/plain',
          size: bytes.length,
          md5: md5(bytes),
        });
        await fresh.put('t/parts', Readable.from([bodyOf(5 * MiB + 1)]), { contentType: 'text/plain' });
        const cut = Readable.from(
          (async function* () {
            yield bodyOf(5 * MiB + 1);
            throw new Error('the client went away');
          })(),
        );
        await expect(fresh.put('t/aborted', cut, { contentType: 'text/plain' })).rejects.toThrow(
          'the client went away',
        );
        expect(await fresh.stat('t/streamed')).toEqual({ size: bytes.length, contentType: 'text/plain' });
        expect(await readAll(await fresh.get('t/streamed'))).toEqual(bytes);
        expect(await collect(fresh.list('t/'))).toEqual(['t/parts', 't/streamed']);
        await fresh.delete('t/streamed');
        await fresh.deleteMany(['t/parts']);
        expect(await collect(fresh.list('t/'))).toEqual([]);

        expect(new Set(proxy.seen.map((request) => request.kind))).toEqual(
          new Set<RequestKind>([
            'check bucket',
            'create bucket',
            'put',
            'start upload',
            'upload part',
            'complete upload',
            'abort upload',
            'stat',
            'get',
            'list',
            'delete',
            'delete many',
          ]),
        );
        for (const { kind, headers } of proxy.seen) {
          expect({ kind, token: headers['x-amz-security-token'] }).toEqual({ kind, token });
          expect({ kind, signed: /SignedHeaders=[^,]*x-amz-security-token/.test(headers.authorization ?? '') }).toEqual(
            {
              kind,
              signed: true,
            },
          );
        }
      } finally {
        fresh.close();
      }
    });
  });
});
