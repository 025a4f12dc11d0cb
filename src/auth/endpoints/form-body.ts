import { parse as parseQueryString } from 'node:querystring';
import { Readable } from 'node:stream';
import express, { type NextFunction, type Request, type Response } from 'express';
import { bodyError, hasBody } from '../../http/body-parsing';
import { NUL } from '../../kernel/validation';
import { OAuthError } from '../oauth-error';
import { sendOAuthError } from './oauth-errors';

/** oidc-provider's own limit at the token endpoint, so that all four form endpoints agree. */
const FORM_BODY_LIMIT_BYTES = 56 * 1024;

const tooLarge = () =>
  new OAuthError('invalid_request', `the form body is larger than ${FORM_BODY_LIMIT_BYTES} bytes`, 413);

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
    return tooLarge();
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

/**
 * The first parameter of a form (or query) holding a NUL, which PostgreSQL cannot store and no
 * OAuth parameter holds: refused as `invalid_request` naming the parameter.
 */
export function nulParameterProblem(params: Record<string, unknown> | undefined): OAuthError | undefined {
  for (const [name, value] of Object.entries(params ?? {})) {
    const values = Array.isArray(value) ? value : [value];
    if (name.includes(NUL) || values.some((one) => typeof one === 'string' && one.includes(NUL))) {
      const shown = name.replaceAll(NUL, '\\0').slice(0, 64);
      return new OAuthError('invalid_request', `parameter '${shown}' must not contain NUL characters`);
    }
  }
  return undefined;
}

/** The whole body, within the limit (undefined when it grew past it). */
async function readLimited(req: Request): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    received += chunk.length;
    if (received > FORM_BODY_LIMIT_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, received);
}

/**
 * Lets the provider read a body that has already been read, as it would read the socket: the
 * same bytes, through the same stream interface (oidc-provider reads forms itself).
 */
function replay(req: Request, body: Buffer): void {
  Object.defineProperty(req, 'readable', { value: true, configurable: true });
  Object.defineProperty(req, 'iterator', {
    value: (options?: { destroyOnReturn?: boolean }) => Readable.from([body]).iterator(options),
    configurable: true,
  });
}

/**
 * Before the endpoints whose forms oidc-provider reads itself (token, a POSTed authorization
 * request, logout): the same refusals as Islet's own form endpoints, then a NUL in any
 * parameter is refused here, before any parameter reaches a lookup.
 */
export function formGuard(req: Request, res: Response, next: NextFunction): void {
  const problem = formProblem(req);
  if (problem) return refuse(req, res, problem);
  if (!hasBody(req.headers) || !req.is('application/x-www-form-urlencoded')) return next();
  readLimited(req).then(
    (body) => {
      if (body === undefined) return refuse(req, res, tooLarge());
      const nul = nulParameterProblem(parseQueryString(body.toString('utf8')));
      if (nul) return sendOAuthError(res, nul);
      replay(req, body);
      next();
    },
    // A client that went away mid-body is owed no answer.
    (error: unknown) => (req.destroyed ? undefined : next(error)),
  );
}

const parse = express.urlencoded({ extended: false, limit: FORM_BODY_LIMIT_BYTES, inflate: false });

/** Islet's own form endpoints: the same refusals, then `req.body`; failures in RFC 6749's shape. */
export function formBody(req: Request, res: Response, next: NextFunction): void {
  const problem = formProblem(req);
  if (problem) return refuse(req, res, problem);
  parse(req, res, (error?: unknown) => {
    if (error === undefined) {
      const nul = nulParameterProblem(req.body as Record<string, unknown> | undefined);
      return nul ? sendOAuthError(res, nul) : next();
    }
    const failure = bodyError(error, 'form body');
    if (!failure) return next(error);
    sendOAuthError(res, new OAuthError('invalid_request', failure.message, failure.code === 'TOO_LARGE' ? 413 : 400));
  });
}
