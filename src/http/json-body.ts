import express, { type NextFunction, type Request, type Response } from 'express';
import { AppError } from '../kernel/errors';
import { MAX_JSON_DEPTH, nestedDeeperThan, tooDeep } from '../kernel/validation';
import { bodyError, hasBody } from './body-parsing';

export const JSON_BODY_LIMIT_BYTES = 1024 * 1024;

const parse = express.json({ limit: JSON_BODY_LIMIT_BYTES, type: () => true, strict: false });

const isJson = (contentType: string) => /^application\/([\w.+-]+\+)?json\s*(;|$)/i.test(contentType);

/**
 * Parses a JSON body up to 1 MiB. A body with another content type is refused with 415 rather
 * than silently ignored; a request without a body leaves `req.body` undefined.
 */
export function jsonBody(onError: (error: AppError, res: Response) => void) {
  return (req: Request, res: Response, next: NextFunction): void => {
    req.body = undefined;
    if (!hasBody(req.headers)) return next();
    const contentType = req.get('content-type') ?? '';
    if (!isJson(contentType)) {
      const reason = contentType
        ? `Content-Type "${contentType}" is not supported here`
        : 'Content-Type header is missing';
      return onError(new AppError('UNSUPPORTED_MEDIA_TYPE', `${reason}; send application/json`), res);
    }
    parse(req, res, (error?: unknown) => {
      if (error === undefined) {
        // Every later walk over the body (NUL and list checks, variable coercion) recurses.
        if (nestedDeeperThan(req.body, MAX_JSON_DEPTH)) return onError(tooDeep('JSON body'), res);
        return next();
      }
      const appError = bodyError(error, 'JSON body');
      if (appError) return onError(appError, res);
      next(error);
    });
  };
}
