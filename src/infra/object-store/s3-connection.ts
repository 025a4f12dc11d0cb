import http from 'node:http';
import https from 'node:https';
import { Client } from 'minio';
import type { S3Settings } from '../../config';
import { timedTransport } from './minio-internals';
import type { StreamedPutTarget } from './s3-streamed-put';

export interface ConnectionOptions {
  connectTimeoutMs: number;
  idleTimeoutMs: number;
  partSize: number;
}

/**
 * The minio client for these settings (path-style addressing, region pinned, minio's own retries
 * off: the store retries, knowing which requests can be sent again), and the same endpoint and
 * credentials for the PUTs the store streams itself. Both share one keep-alive agent.
 */
export function connect(
  settings: S3Settings,
  { connectTimeoutMs, idleTimeoutMs, partSize }: ConnectionOptions,
): { client: Client; target: StreamedPutTarget } {
  const url = new URL(settings.endpoint);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`S3 endpoint ${settings.endpoint} must be an http:// or https:// URL`);
  }
  if (url.pathname !== '/' || url.search || url.hash) {
    throw new Error(`S3 endpoint ${settings.endpoint} must not have a path or query (the bucket goes in S3_BUCKET)`);
  }
  const useSSL = url.protocol === 'https:';
  const transport = useSSL ? https : http;
  // Free sockets are closed after 4 s: below any server's keep-alive timeout, so a request never
  // goes out on a socket the server is closing at the same moment.
  const agent = new transport.Agent({ keepAlive: true, timeout: 4_000, maxSockets: 32 });
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = url.port ? Number(url.port) : useSSL ? 443 : 80;
  const client = new Client({
    endPoint: hostname,
    port,
    useSSL,
    accessKey: settings.accessKey,
    secretKey: settings.secretKey,
    sessionToken: settings.sessionToken,
    region: settings.region,
    pathStyle: true,
    partSize,
    transportAgent: agent,
    transport: timedTransport(transport, connectTimeoutMs, idleTimeoutMs),
    retryOptions: { disableRetry: true },
  });
  const target: StreamedPutTarget = {
    protocol: useSSL ? 'https:' : 'http:',
    transport,
    agent,
    hostname,
    port,
    hostHeader: url.host,
    bucket: settings.bucket,
    accessKey: settings.accessKey,
    secretKey: settings.secretKey,
    sessionToken: settings.sessionToken,
    region: settings.region,
    connectTimeoutMs,
    idleTimeoutMs,
  };
  return { client, target };
}
