import express, { type NextFunction, type Request, type Response } from 'express';
import { AppError } from '../kernel/errors';

export const JSON_BODY_LIMIT_BYTES = 1024 * 1024;

const parse = express.json({ limit: JSON_BODY_LIMIT_BYTES, type: () => true, strict: false });

function hasBody(req: Request): boolean {
  const length = req.get('content-length');
  return req.get('transfer-encoding') !== undefined || (length !== undefined && length !== '0');
}

const isJson = (contentType: string) => /^application\/([\w.+-]+\+)?json\s*(;|$)/i.test(contentType);

/** body-parser's failures as AppErrors, so each transport answers them in its own format. */
export function bodyError(error: unknown): AppError | undefined {
  const failure = error as { type?: string; message?: string; limit?: number };
  switch (failure?.type) {
    case 'entity.parse.failed':
      return new AppError('INVALID', `Malformed JSON body: ${failure.message}`);
    case 'entity.too.large':
      return new AppError('TOO_LARGE', `JSON body is larger than the limit of ${JSON_BODY_LIMIT_BYTES} bytes`);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppError('UNSUPPORTED_MEDIA_TYPE', failure.message ?? 'Unsupported body encoding');
    case 'request.aborted':
    case 'request.size.invalid':
      return new AppError('INVALID', 'The request body was incomplete');
    default:
      return undefined;
  }
}

/**
 * Parses a JSON body up to 1 MiB. A body with another content type is refused with 415 rather
 * than silently ignored; a request without a body leaves `req.body` undefined.
 */
export function jsonBody(onError: (error: AppError, res: Response) => void) {
  return (req: Request, res: Response, next: NextFunction): void => {
    req.body = undefined;
    if (!hasBody(req)) return next();
    const contentType = req.get('content-type') ?? '';
    if (!isJson(contentType)) {
      const reason = contentType
        ? `Content-Type "${contentType}" is not supported here`
        : 'Content-Type header is missing';
      return onError(new AppError('UNSUPPORTED_MEDIA_TYPE', `${reason}; send application/json`), res);
    }
    parse(req, res, (error?: unknown) => {
      if (error === undefined) return next();
      const appError = bodyError(error);
      if (appError) return onError(appError, res);
      next(error);
    });
  };
}
