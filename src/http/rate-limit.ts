import type { NextFunction, Request, Response } from 'express';

/** A limit per key: seconds to wait before the next request would be allowed, 0 to let one through. */
export interface RequestLimit {
  take(key: string): number | Promise<number>;
}

/** Answers 429 with Retry-After, in the OAuth error shape, once an address exceeds the limit. */
export function rateLimit(limiter: RequestLimit | undefined, keyOf: (req: Request, res: Response) => string) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const wait = limiter ? await limiter.take(keyOf(req, res)) : 0;
    if (wait === 0) return next();
    res.setHeader('Retry-After', String(wait));
    res.status(429).json({
      error: 'temporarily_unavailable',
      error_description: `Too many requests from this address; retry in ${wait} s`,
    });
  };
}
