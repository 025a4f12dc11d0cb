import type { NextFunction, Request, Response } from 'express';
import type { RateLimiter } from '../kernel/rate-limiter';

/** Answers 429 with Retry-After, in the OAuth error shape, once an address exceeds the limit. */
export function rateLimit(limiter: RateLimiter | undefined, keyOf: (req: Request, res: Response) => string) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const wait = limiter?.take(keyOf(req, res)) ?? 0;
    if (wait === 0) return next();
    res.setHeader('Retry-After', String(wait));
    res.status(429).json({
      error: 'temporarily_unavailable',
      error_description: `Too many requests from this address; retry in ${wait} s`,
    });
  };
}
