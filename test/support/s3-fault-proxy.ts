import http from 'node:http';
import type net from 'node:net';

/** What an S3 request does, read from its method, path and query (path-style addressing). */
export type RequestKind =
  | 'check bucket'
  | 'create bucket'
  | 'list'
  | 'delete many'
  | 'stat'
  | 'get'
  | 'put'
  | 'delete'
  | 'start upload'
  | 'upload part'
  | 'complete upload'
  | 'abort upload';

export function kindOf(method: string, url: string): RequestKind {
  const { pathname, searchParams } = new URL(url, 'http://s3');
  const onBucket = pathname.split('/').filter(Boolean).length === 1;
  const on = (param: string) => searchParams.has(param);
  if (onBucket) {
    if (method === 'HEAD') return 'check bucket';
    if (method === 'PUT') return 'create bucket';
    if (method === 'POST' && on('delete')) return 'delete many';
    if (method === 'GET') return 'list';
  } else {
    if (method === 'HEAD') return 'stat';
    if (method === 'GET') return 'get';
    if (method === 'PUT') return on('partNumber') ? 'upload part' : 'put';
    if (method === 'POST') return on('uploads') ? 'start upload' : 'complete upload';
    if (method === 'DELETE') return on('uploadId') ? 'abort upload' : 'delete';
  }
  throw new Error(`the fault proxy does not know ${method} ${url}`);
}

/** `slow-down`: a 503 SlowDown answer (after reading the body); `reset`: the connection cut (TCP RST) on arrival. */
export type Fault = 'slow-down' | 'reset';

export interface SeenRequest {
  kind: RequestKind;
  headers: http.IncomingHttpHeaders;
  /** The fault it was answered with; undefined when it went through to the server. */
  fault: Fault | undefined;
}

export interface FaultProxy {
  /** Where to point the S3 store: requests go on to the upstream server unless a fault is set. */
  endpoint: string;
  /** Every request that arrived, in order. */
  seen: SeenRequest[];
  /** How many requests of `kind` arrived (failed ones included). */
  attempts(kind: RequestKind): number;
  /** Answers the next `times` requests of `kind` with `fault` (every one, when `times` is omitted). */
  fail(kind: RequestKind, fault: Fault, times?: number): void;
  /** Forgets the requests seen and the faults still set. */
  reset(): void;
  close(): Promise<void>;
}

const SLOW_DOWN =
  '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>';

/**
 * An HTTP proxy in front of a real S3 server that throttles or cuts chosen kinds of requests, as
 * a loaded S3 or a load balancer on the way would, and records every request it sees. Headers
 * and bodies pass unchanged, so signatures stay valid.
 */
export async function startFaultProxy(upstream: string): Promise<FaultProxy> {
  const target = new URL(upstream);
  const seen: SeenRequest[] = [];
  const faults = new Map<RequestKind, { fault: Fault; left: number }>();
  const agent = new http.Agent({ keepAlive: true });

  const server = http.createServer((req, res) => {
    const kind = kindOf(req.method!, req.url!);
    const planned = faults.get(kind);
    const fault = planned && planned.left > 0 ? planned.fault : undefined;
    if (planned && fault) planned.left -= 1;
    seen.push({ kind, headers: req.headers, fault });
    if (fault === 'reset') return void req.socket.resetAndDestroy();
    if (fault === 'slow-down') {
      req.resume();
      req.once('end', () => res.writeHead(503, { 'content-type': 'application/xml' }).end(SLOW_DOWN));
      return;
    }
    const forwarded = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers, agent },
      (answer) => {
        res.writeHead(answer.statusCode!, answer.statusMessage, answer.headers);
        answer.pipe(res);
      },
    );
    forwarded.once('error', () => res.destroy());
    req.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;

  return {
    endpoint: `http://127.0.0.1:${port}`,
    seen,
    attempts: (kind) => seen.filter((request) => request.kind === kind).length,
    fail: (kind, fault, times = Infinity) => void faults.set(kind, { fault, left: times }),
    reset() {
      seen.length = 0;
      faults.clear();
    },
    close: async () => {
      server.closeAllConnections();
      agent.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
