import type http from 'node:http';

/** Small pieces of talking HTTP to an S3 server, shared by the minio transport and streamed PUTs. */

/** An error that reads as a network timeout (ETIMEDOUT), so it is classed as "unreachable". */
export function timeoutError(message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code: 'ETIMEDOUT' });
}

/** The text of the first `<tag>` of an S3 XML document (error documents are flat). */
export function xmlText(xml: string, tag: string): string | undefined {
  return new RegExp(`<${tag}>([^<]*)</${tag}>`).exec(xml)?.[1];
}

/** Destroys `request` with ETIMEDOUT unless its socket connects within `ms`. */
export function connectDeadline(request: http.ClientRequest, ms: number): void {
  request.once('socket', (socket) => {
    if (!socket.connecting) return;
    const timer = setTimeout(() => request.destroy(timeoutError(`could not connect within ${ms} ms`)), ms);
    const clear = () => clearTimeout(timer);
    socket.once('connect', clear);
    request.once('close', clear);
  });
}
