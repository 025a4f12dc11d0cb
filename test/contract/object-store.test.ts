import { createHash, randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { Client } from 'minio';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { loadConfig, type S3Settings } from '../../src/config';
import { createObjectStore } from '../../src/infra/object-store';
import { FilesystemStore } from '../../src/infra/object-store/filesystem-store';
import { MeteredStore } from '../../src/infra/object-store/metered-store';
import { ObjectDigestMismatchError, ObjectStoreUnavailableError } from '../../src/infra/object-store/object-store';
import { S3Store, createMinioClient } from '../../src/infra/object-store/s3-store';
import { describeWithS3 } from '../support/describe-with-s3';
import { sharedS3Settings, startS3Server, type TestS3Server } from '../support/s3-server';
import { readAll, describeObjectStoreContract } from './object-store.contract';

describeObjectStoreContract('FilesystemStore', async () => {
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

/** Resolves with the rejection of `promise` and how long it took to come. */
async function failure(promise: Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const start = Date.now();
  try {
    await promise;
  } catch (error) {
    return { error, ms: Date.now() - start };
  }
  throw new Error('expected a rejection');
}

function expectUnavailable({ error, ms }: { error: unknown; ms: number }, endpoint: string, within = 10_000) {
  expect(error).toBeInstanceOf(ObjectStoreUnavailableError);
  expect((error as Error).message).toContain(`object store at ${endpoint} is unreachable: `);
  expect(ms).toBeLessThan(within);
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
    const md5 = createHash('md5').update('bytes').digest('base64');
    expect(store.checksDigest({ size: 5, md5 })).toBe(true);
    // Parts carry their own MD5s; the whole body's is never checked by the server.
    expect(store.checksDigest({ md5 })).toBe(false);
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
      let server: TestS3Server;
      beforeAll(async () => {
        server = await startS3Server();
      }, 60_000);
      afterAll(async () => {
        await server?.destroy();
      }, 60_000);

      it('makes every operation reject with ObjectStoreUnavailableError within seconds, and recovers', async () => {
        const { endpoint } = server.settings;
        const store = storeFor(server.settings);
        await store.ping(); // creates the bucket
        await store.put('kept/one', Readable.from([Buffer.from('still here')]), { contentType: 'text/plain' });
        // Client side closes first: connections the dying server closes would sit in TIME_WAIT on
        // its port for a minute and keep restart() (same port) from binding it.
        store.close();
        await server.stop();

        expectUnavailable(await failure(store.ping()), endpoint);
        expectUnavailable(await failure(store.get('kept/one')), endpoint);
        expectUnavailable(await failure(store.stat('kept/one')), endpoint);
        expectUnavailable(await failure(store.delete('kept/one')), endpoint);
        expectUnavailable(await failure(store.list('kept/')[Symbol.asyncIterator]().next()), endpoint);
        const body = Readable.from([Buffer.from('lost')]);
        expectUnavailable(await failure(store.put('kept/two', body, { contentType: 'text/plain' })), endpoint);
        // a store created while the server is down fails the same way (its bucket check fails)
        expectUnavailable(await failure(storeFor(server.settings).ping()), endpoint);

        await server.restart();
        await store.ping();
        expect((await readAll(await store.get('kept/one'))).toString()).toBe('still here');
      }, 60_000);
    });

    it('rejects quickly when nothing listens on the port', async () => {
      const probe = net.createServer();
      await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
      const { port } = probe.address() as net.AddressInfo;
      await new Promise((resolve) => probe.close(resolve));
      const endpoint = `http://127.0.0.1:${port}`;
      const store = storeFor(settingsFor(endpoint));
      const refused = await failure(store.ping());
      expectUnavailable(refused, endpoint, 2_000);
      expect((refused.error as Error).message).toContain('ECONNREFUSED');
      expectUnavailable(await failure(store.get('a/b')), endpoint, 2_000);
      const body = Readable.from([Buffer.from('x')]);
      expectUnavailable(await failure(store.put('a/b', body, { contentType: 'text/plain' })), endpoint, 2_000);
    });

    it('gives up on a server that accepts connections but never answers', async () => {
      const accepted: net.Socket[] = [];
      const silent = net.createServer((socket) => void accepted.push(socket));
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      const endpoint = `http://127.0.0.1:${(silent.address() as net.AddressInfo).port}`;
      try {
        const store = storeFor(settingsFor(endpoint), { idleTimeoutMs: 500 });
        const timedOut = await failure(store.ping());
        expectUnavailable(timedOut, endpoint, 3_000);
        expect((timedOut.error as Error).message).toContain('no answer within 500 ms');
      } finally {
        accepted.forEach((socket) => socket.destroy());
        await new Promise((resolve) => silent.close(resolve));
      }
    });

    it('treats 5xx answers as unavailable', async () => {
      const fake = await fakeEndpoint((req, res) => {
        if (req.method === 'HEAD') return void res.writeHead(200).end(); // the bucket exists
        if (req.url?.includes('html')) {
          res.writeHead(502, { 'content-type': 'text/html' }).end('<html><body>Bad Gateway</body></html>');
          return;
        }
        res.writeHead(503, { 'content-type': 'application/xml' });
        res.end('<?xml version="1.0"?><Error><Code>ServiceUnavailable</Code><Message>Overloaded</Message></Error>');
      });
      try {
        const store = storeFor(settingsFor(fake.endpoint));
        const overloaded = await failure(store.get('a/b'));
        expectUnavailable(overloaded, fake.endpoint, 2_000);
        expect((overloaded.error as Error).message).toContain('ServiceUnavailable: Overloaded');
        expectUnavailable(await failure(store.get('html/page')), fake.endpoint, 2_000);
        const body = Readable.from([Buffer.from('x')]);
        expectUnavailable(await failure(store.put('a/b', body, { contentType: 'text/plain' })), fake.endpoint, 2_000);
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
        const cut = await failure(readAll(body));
        expectUnavailable(cut, fake.endpoint, 2_000);
        expect((cut.error as Error).message).toContain('read a/b');
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
        expectUnavailable(stalled, fake.endpoint, 2_000);
        expect((stalled.error as Error).message).toContain(
          'read server/stalls failed: ETIMEDOUT: no data within 300 ms',
        );

        const body = await store.get('reader/is-slow');
        await new Promise((resolve) => setTimeout(resolve, 1_000)); // a slow client behind backpressure
        expect(await readAll(body)).toEqual(Buffer.alloc(1024 * 1024, 7));
      } finally {
        await fake.close();
      }
    });

    describe('a body of announced size and MD5, streamed in one request', () => {
      const MiB = 1024 * 1024;
      const announced = (bytes: Buffer) => ({
        contentType: 'application/octet-stream',
        size: bytes.length,
        md5: createHash('md5').update(bytes).digest('base64'),
      });
      /** `bytes` in 64 KiB chunks, with a pause of `pauseMs` once half of them have gone. */
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
        const wrong = { ...announced(bytes), md5: createHash('md5').update('other').digest('base64') };
        const error = await store.put('streamed/wrong', Readable.from([bytes]), wrong).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ObjectDigestMismatchError);
        expect(await store.stat('streamed/wrong')).toBeNull();
      });

      it('waits for a slow body without counting it against the idle deadline', async () => {
        const store = storeFor(sharedS3Settings()!, { idleTimeoutMs: 300 });
        const bytes = randomBytes(2 * MiB);
        await store.put('streamed/slow', slowly(bytes, 1_000), announced(bytes));
        expect(await readAll(await store.get('streamed/slow'))).toEqual(bytes);
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
          expectUnavailable(stalled, fake.endpoint, 3_000);
          expect((stalled.error as Error).message).toContain('the object store took no data for 300 ms');
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
          const wrong = { ...announced(bytes), md5: createHash('md5').update('other').digest('base64') };
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
});
