import type { NextFunction, Request, Response } from 'express';

const ALLOWED_HEADERS = [
  'authorization',
  'content-type',
  'digest',
  'x-tidepool-session-token',
  'x-tidepool-server-name',
  'x-tidepool-server-secret',
  'x-tidepool-trace-request',
  'x-tidepool-trace-session',
  'x-logs-start-at-time',
  'x-logs-end-at-time',
  'x-request-id',
  'apollo-require-preflight',
].join(', ');

const EXPOSED_HEADERS = ['x-tidepool-session-token', 'digest', 'x-request-id', 'start-at', 'end-at'].join(', ');

/**
 * Browser apps on other origins call the API with tokens in headers (never cookies), so any
 * origin may call it, and credentials mode stays off.
 */
export function apiCors(req: Request, res: Response, next: NextFunction): void {
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
  if (req.method !== 'OPTIONS' || !req.get('access-control-request-method')) return next();
  res.setHeader('Access-Control-Allow-Methods', 'GET, POST, PUT, PATCH, DELETE, OPTIONS');
  res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
  res.setHeader('Access-Control-Max-Age', '600');
  res.status(204).end();
}
