import express, { type NextFunction, type Request, type Response } from 'express';
import { bodyError, hasBody } from '../../http/body-parsing';
import { OAuthError, sendOAuthError } from './oauth-errors';

/** oidc-provider's own limit at the token endpoint, so that all four form endpoints agree. */
const FORM_BODY_LIMIT_BYTES = 56 * 1024;

const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)/i;

/**
 * What the form endpoints refuse before reading a body: RFC 6749 (Appendix B) forms are UTF-8
 * and sent uncompressed (oidc-provider would read compressed bytes as text), within the limit.
 */
function formProblem(req: Request): OAuthError | undefined {
  if (!hasBody(req.headers)) return undefined;
  const encoding = req.get('content-encoding')?.trim().toLowerCase();
  if (encoding && encoding !== 'identity') {
    return new OAuthError(
      'invalid_request',
      `Content-Encoding "${encoding}" is not supported; send the form uncompressed`,
    );
  }
  if (Number(req.get('content-length')) > FORM_BODY_LIMIT_BYTES) {
    return new OAuthError('invalid_request', `the form body is larger than ${FORM_BODY_LIMIT_BYTES} bytes`, 413);
  }
  const charset = CHARSET.exec(req.get('content-type') ?? '')?.[1].toLowerCase();
  if (charset !== undefined && charset !== 'utf-8') {
    return new OAuthError('invalid_request', `charset "${charset}" is not supported; send the form as UTF-8`);
  }
  return undefined;
}

function refuse(req: Request, res: Response, error: OAuthError): void {
  // Read the unread body into nothing, so the client can finish sending and see the answer.
  req.resume();
  sendOAuthError(res, error);
}

/** Before the token endpoint, whose body oidc-provider reads itself. */
export function formGuard(req: Request, res: Response, next: NextFunction): void {
  const problem = formProblem(req);
  if (problem) return refuse(req, res, problem);
  next();
}

const parse = express.urlencoded({ extended: false, limit: FORM_BODY_LIMIT_BYTES, inflate: false });

/** Islet's own form endpoints: the same refusals, then `req.body`; failures in RFC 6749's shape. */
export function formBody(req: Request, res: Response, next: NextFunction): void {
  const problem = formProblem(req);
  if (problem) return refuse(req, res, problem);
  parse(req, res, (error?: unknown) => {
    if (error === undefined) return next();
    const failure = bodyError(error, 'form body');
    if (!failure) return next(error);
    sendOAuthError(res, new OAuthError('invalid_request', failure.message, failure.code === 'TOO_LARGE' ? 413 : 400));
  });
}
