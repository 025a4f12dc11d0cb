import type { NextFunction, Request, Response } from 'express';

/**
 * Headers of a download of stored bytes: whatever media type the uploader named, the browser
 * saves the file instead of rendering it (an uploaded `text/html` must never run as a page of
 * this origin) and never guesses another type.
 */
export const DOWNLOAD_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Content-Disposition': 'attachment',
} as const;

/**
 * `X-Content-Type-Options: nosniff` on every response: REST, GraphQL, the realms' provider,
 * health, 404s and errors. It is added when the headers are written, so a handler that clears
 * headers on the way (Koa does on errors) cannot lose it.
 */
export function securityHeaders(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  const writeHead = res.writeHead;
  res.writeHead = function (this: Response, ...args: unknown[]) {
    if (!this.headersSent && !this.hasHeader('X-Content-Type-Options')) {
      this.setHeader('X-Content-Type-Options', 'nosniff');
    }
    return (writeHead as (...args: unknown[]) => Response).apply(this, args);
  } as Response['writeHead'];
  next();
}
