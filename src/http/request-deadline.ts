import type { Request, RequestHandler } from 'express';
import { uploadGraceMs } from '../infra/content/content-store';
import { hasBody } from './body-parsing';

/** Node's default for receiving a whole request, which every request but an upload keeps. */
export const REQUEST_TIMEOUT_MS = 300_000;

/** How long an upload's request may take: its own deadline, then the grace it has to answer after it. */
export const uploadRequestTimeoutMs = (uploadTimeoutMs: number) => uploadTimeoutMs + uploadGraceMs(uploadTimeoutMs);

/** What Node itself answers to a request that took too long to arrive. */
const REQUEST_TIMEOUT_ANSWER = 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n';

interface Deadline {
  began: number;
  timer: NodeJS.Timeout;
}

const deadlines = new WeakMap<Request, Deadline>();

const expireAt = (req: Request, at: number) => setTimeout(() => expire(req), at - Date.now()).unref();

/** As Node's requestTimeout: 408 if nothing was answered yet, and the connection closes. */
function expire(req: Request): void {
  if (req.complete) return;
  const { socket } = req;
  if (req.res?.headersSent || !socket.writable) return void socket.destroy();
  socket.write(REQUEST_TIMEOUT_ANSWER, () => socket.destroy());
}

/**
 * Ends a request whose body has not all arrived `ms` after it began. Node's own requestTimeout
 * is one value per server, set long enough for uploads (service.ts); this keeps Node's default
 * for every other request, whose body is small.
 */
export function requestDeadline(ms = REQUEST_TIMEOUT_MS): RequestHandler {
  return (req, _res, next) => {
    if (hasBody(req.headers) && !req.complete) {
      const began = Date.now();
      deadlines.set(req, { began, timer: expireAt(req, began + ms) });
      const arrived = () => clearTimeout(deadlines.get(req)?.timer);
      req.once('end', arrived);
      req.once('close', arrived);
    }
    next();
  };
}

/** For upload routes: their body may take `ms` (UPLOAD_TIMEOUT_SECONDS) from the request's start. */
export function uploadDeadline(ms: number): RequestHandler {
  return (req, _res, next) => {
    const deadline = deadlines.get(req);
    if (deadline && !req.complete) {
      clearTimeout(deadline.timer);
      deadline.timer = expireAt(req, deadline.began + ms);
    }
    next();
  };
}
