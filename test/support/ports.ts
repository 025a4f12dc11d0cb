import net from 'node:net';

/**
 * A loopback port nothing listens on now, chosen by the kernel: for a server started later
 * under a port it must be told in advance (an embedded PostgreSQL, a service whose public URL
 * names its port). Fixed ports collide with whatever else runs on the machine.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
