import type { Response } from 'express';

/** An OAuth 2.0 error as RFC 6749 §5.2 shapes it, for the endpoints Islet serves itself. */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
  ) {
    super(description);
  }
}

export function sendOAuthError(res: Response, error: OAuthError, realmIssuer?: string): void {
  if (error.status === 401 && realmIssuer) {
    res.setHeader('WWW-Authenticate', `Basic realm="${realmIssuer}", error="${error.error}"`);
  }
  res
    .status(error.status)
    .setHeader('Cache-Control', 'no-store')
    .json({ error: error.error, error_description: error.description });
}
