import { createHash, createHmac } from 'node:crypto';
import { createRequire } from 'node:module';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { Client } from 'minio';
import { signV4 } from 'minio/dist/main/signing.js';
import {
  abortUpload,
  deleteObjects,
  finishUpload,
  listPage,
  MINIO_RETRIED_STATUSES,
  sendPart,
  signRequest,
  startUpload,
  timedTransport,
} from './minio-internals';
import { keyPath } from './s3-wire';

/*
 * The minio internals the S3 driver relies on, checked against what they send and how they read
 * the answers, so an upgrade of `minio` that changes one fails here.
 */

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const hmac = (key: string | Buffer, text: string) => createHmac('sha256', key).update(text).digest();

/** AWS SigV4 written out from the specification, independently of minio. */
function sigV4(
  method: string,
  canonicalUri: string,
  headers: Record<string, string>,
  signed: string[],
  payloadHash: string,
  { accessKey, secretKey, region }: { accessKey: string; secretKey: string; region: string },
  amzDate: string,
): string {
  const day = amzDate.slice(0, 8);
  const scope = `${day}/${region}/s3/aws4_request`;
  const canonical = [
    method,
    canonicalUri,
    '',
    ...signed.map((name) => `${name}:${headers[name].trim()}`),
    '',
    signed.join(';'),
    payloadHash,
  ].join('\n');
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${secretKey}`, day), region), 's3'), 'aws4_request');
  const signature = createHmac('sha256', key).update(toSign).digest('hex');
  return `AWS4-HMAC-SHA256 Credential=${accessKey}/${scope}, SignedHeaders=${signed.join(';')}, Signature=${signature}`;
}

describe('the minio members the driver calls', () => {
  it('exist with the parameters the driver passes', () => {
    const arity = (name: keyof Client) => (Client.prototype[name] as (...args: unknown[]) => unknown).length;
    expect({
      initiateNewMultipartUpload: arity('initiateNewMultipartUpload'),
      uploadPart: arity('uploadPart'),
      completeMultipartUpload: arity('completeMultipartUpload'),
      abortMultipartUpload: arity('abortMultipartUpload'),
      listObjectsQuery: arity('listObjectsQuery'),
      signV4: signV4.length,
    }).toEqual({
      initiateNewMultipartUpload: 3,
      uploadPart: 2,
      completeMultipartUpload: 4,
      abortMultipartUpload: 3,
      listObjectsQuery: 4,
      // request, accessKey, secretKey, region, date, payload hash (the service name has a default)
      signV4: 6,
    });
    expect(typeof Client.prototype.removeObjects).toBe('function');
  });
});

describe('signRequest (minio signV4)', () => {
  it("gives AWS's documented signature for its GET example", () => {
    // "Example: GET Object" of AWS's "Signature Calculations for the Authorization Header".
    const emptyHash = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
    const authorization = signRequest(
      {
        protocol: 'https:',
        method: 'GET',
        path: '/test.txt',
        headers: {
          host: 'examplebucket.s3.amazonaws.com',
          range: 'bytes=0-9',
          'x-amz-content-sha256': emptyHash,
          'x-amz-date': '20130524T000000Z',
        },
      },
      { accessKey: 'AKIAIOSFODNN7EXAMPLE', secretKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', region: 'us-east-1' },
      new Date(Date.UTC(2013, 4, 24)),
      emptyHash,
    );
    expect(authorization.replace(/, /g, ',')).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,' +
        'SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,' +
        'Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
    );
  });

  it('signs a streamed PUT as the specification does: path as sent, session token, no content type', () => {
    const credentials = { accessKey: 'islet:tester', secretKey: 'testing-secret', region: 'eu-west-3' };
    const headers = {
      host: '127.0.0.1:9000',
      'content-type': 'text/plain',
      'content-length': '5',
      'content-md5': 'XUFAKrxLKna5cZ2REBfFkg==',
      'x-amz-date': '20261125T014500Z',
      'x-amz-content-sha256': 'UNSIGNED-PAYLOAD',
      'x-amz-security-token': 'FQoGZXIvYXdzEJr//token+=',
    };
    const path = `/islet-blobs/${keyPath("odd/!'()* +=&~é")}`;
    expect(path).toBe('/islet-blobs/odd/%21%27%28%29%2A%20%2B%3D%26~%C3%A9');
    const date = new Date(Date.UTC(2026, 10, 25, 1, 45, 0));
    const signed = ['content-md5', 'host', 'x-amz-content-sha256', 'x-amz-date', 'x-amz-security-token'];
    expect(
      signRequest({ protocol: 'http:', method: 'PUT', path, headers }, credentials, date, 'UNSIGNED-PAYLOAD'),
    ).toBe(sigV4('PUT', path, headers, signed, 'UNSIGNED-PAYLOAD', credentials, '20261125T014500Z'));
  });
});

describe('MINIO_RETRIED_STATUSES', () => {
  it("is minio's own list of statuses it would retry", () => {
    // not exported by the package: read where minio keeps it, as minio itself does
    const internal = createRequire(require.resolve('minio'))(
      path.join(path.dirname(require.resolve('minio')), 'internal', 'request.js'),
    ) as { retryHttpCodes: Record<string, boolean> };
    expect([...MINIO_RETRIED_STATUSES].sort()).toEqual(Object.keys(internal.retryHttpCodes).map(Number).sort());
  });
});

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

describe('the minio calls the driver makes', () => {
  const seen: Seen[] = [];
  let answer: (req: Seen) => { status: number; headers?: Record<string, string>; body?: string };
  let server: http.Server;
  let client: Client;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const request = {
          method: req.method!,
          url: req.url!,
          headers: req.headers,
          body: Buffer.concat(chunks).toString(),
        };
        seen.push(request);
        const { status, headers, body } = answer(request);
        res.writeHead(status, headers).end(body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    client = new Client({
      endPoint: '127.0.0.1',
      port: (server.address() as net.AddressInfo).port,
      useSSL: false,
      accessKey: 'islet:tester',
      secretKey: 'testing-secret',
      sessionToken: 'session-token',
      region: 'us-east-1',
      pathStyle: true,
      transport: timedTransport(http, 1_000, 1_000),
      retryOptions: { disableRetry: true },
    });
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  beforeEach(() => {
    seen.length = 0;
  });

  const key = "in/!'()* +=&~é";
  const objectPath = `/b-1/${keyPath(key)}`;

  it('starts an upload: POST ?uploads with the content type, resolving with the upload id', async () => {
    answer = () => ({
      status: 200,
      body: '<InitiateMultipartUploadResult><UploadId>up-1</UploadId></InitiateMultipartUploadResult>',
    });
    expect(await startUpload(client, 'b-1', key, 'text/csv')).toBe('up-1');
    expect(seen).toMatchObject([
      { method: 'POST', url: `${objectPath}?uploads`, headers: { 'content-type': 'text/csv' } },
    ]);
  });

  it('sends a part with its MD5 and the session token, resolving with its ETag', async () => {
    answer = () => ({ status: 200, headers: { etag: '"abc"' } });
    const part = { bucket: 'b-1', key, uploadId: 'up-1', partNumber: 2, md5: 'md5-of-part' };
    expect(await sendPart(client, part, Buffer.from('part bytes'))).toBe('abc');
    expect(seen).toMatchObject([
      {
        method: 'PUT',
        url: `${objectPath}?uploadId=up-1&partNumber=2`,
        headers: {
          'content-md5': 'md5-of-part',
          'x-amz-security-token': 'session-token',
          'x-amz-content-sha256': sha256('part bytes'),
        },
        body: 'part bytes',
      },
    ]);
    expect(seen[0].headers.authorization).toContain('x-amz-security-token');
  });

  it('completes an upload with the parts in order, and aborts one with DELETE ?uploadId', async () => {
    answer = (req) =>
      req.method === 'POST'
        ? {
            status: 200,
            body: '<CompleteMultipartUploadResult><Location>/b-1/k</Location><Bucket>b-1</Bucket><Key>k</Key><ETag>"e"</ETag></CompleteMultipartUploadResult>',
          }
        : { status: 204 };
    await finishUpload(client, 'b-1', key, 'up-1', [
      { part: 1, etag: 'e1' },
      { part: 2, etag: 'e2' },
    ]);
    await abortUpload(client, 'b-1', key, 'up-1');
    expect(seen.map(({ method, url }) => `${method} ${url}`)).toEqual([
      `POST ${objectPath}?uploadId=up-1`,
      `DELETE ${objectPath}?uploadId=up-1`,
    ]);
    expect(seen[0].body.replace(/\s/g, '')).toContain(
      '<Part><PartNumber>1</PartNumber><ETag>e1</ETag></Part><Part><PartNumber>2</PartNumber><ETag>e2</ETag></Part>',
    );
  });

  it('lists a page after the marker, decoding url-encoded keys', async () => {
    answer = () => ({
      status: 200,
      body:
        '<ListBucketResult><IsTruncated>true</IsTruncated><NextMarker>in%2F2</NextMarker>' +
        '<Contents><Key>in/%21%27%28%29%2A%20%2B%3D%26~%C3%A9</Key><Size>1</Size></Contents>' +
        '<Contents><Key>in/2</Key><Size>1</Size></Contents></ListBucketResult>',
    });
    expect(await listPage(client, 'b-1', 'in/', "in/!'", 2)).toEqual({
      keys: [key, 'in/2'],
      isTruncated: true,
    });
    expect(seen.map(({ method, url }) => `${method} ${url}`)).toEqual([
      'GET /b-1?delimiter=&encoding-type=url&marker=in%2F%21%27&max-keys=2&prefix=in%2F',
    ]);
  });

  it('deletes many keys in one POST ?delete, returning the per-key errors', async () => {
    answer = () => ({
      status: 200,
      body:
        '<DeleteResult><Deleted><Key>a</Key></Deleted>' +
        '<Error><Key>b</Key><Code>AccessDenied</Code><Message>no</Message></Error></DeleteResult>',
    });
    expect(await deleteObjects(client, 'b-1', ['a', 'b & c'])).toEqual([
      { Key: 'b', Code: 'AccessDenied', Message: 'no' },
    ]);
    expect(seen).toMatchObject([{ method: 'POST', url: '/b-1?delete' }]);
    expect(seen[0].body).toContain('<Key>b &amp; c</Key>');
  });

  it('hands minio a throttling answer as an error with the S3 code and the HTTP status', async () => {
    answer = () => ({
      status: 503,
      body: '<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>',
    });
    const error = await client.getObject('b-1', key).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'SlowDown', message: 'Please reduce your request rate.', httpstatus: 503 });
    expect(seen).toMatchObject([{ method: 'GET', url: objectPath }]);
  });
});
