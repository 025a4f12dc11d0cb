import net from 'node:net';
import type { S3Settings } from '../../src/config';
import { randomBucket, sharedS3Settings } from './s3-server';

/** An S3 server a test can take down and bring back, keeping what it stored. */
export interface StoppableS3 {
  /** Settings for S3Store / S3_* variables, with a fresh bucket of its own. */
  settings: S3Settings;
  /** Down: connections in flight are cut (TCP reset) and new ones refused, as when the server dies. */
  stop(): Promise<void>;
  /** Up again on the same port, with every object still there. */
  restart(): Promise<void>;
  /** Down for good. */
  destroy(): Promise<void>;
}

/**
 * The shared Swift S3 server (global-setup.ts) behind a TCP relay on a port of its own. Taking
 * the relay down is what a client sees when the server dies: requests in flight fail, new
 * connections are refused (ECONNREFUSED). A Swift server of the test's own did the same at the
 * cost of four Python processes started at every restart, several seconds of CPU each time.
 */
export async function startS3Outage(): Promise<StoppableS3> {
  const shared = sharedS3Settings();
  if (!shared) throw new Error('no shared Swift server was started (test/support/global-setup.ts)');
  const upstream = new URL(shared.endpoint);
  const connections = new Set<net.Socket>();
  const relay = net.createServer((client) => {
    const server = net.connect(Number(upstream.port), upstream.hostname);
    for (const socket of [client, server]) {
      connections.add(socket);
      socket.on('close', () => connections.delete(socket));
      // Either side going away takes the other with it, as one TCP connection would.
      socket.on('error', () => (socket === client ? server : client).destroy());
    }
    client.pipe(server).pipe(client);
  });
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      relay.once('error', reject);
      relay.listen(port, '127.0.0.1', () => {
        relay.off('error', reject);
        resolve((relay.address() as net.AddressInfo).port);
      });
    });
  const port = await listen(0);
  let running = true;
  const stop = async () => {
    if (!running) return;
    running = false;
    const closed = new Promise<void>((resolve) => relay.close(() => resolve()));
    for (const socket of connections) socket.resetAndDestroy();
    await closed;
  };
  return {
    settings: { ...shared, endpoint: `http://127.0.0.1:${port}`, bucket: randomBucket() },
    stop,
    async restart() {
      await stop();
      await listen(port);
      running = true;
    },
    destroy: stop,
  };
}
