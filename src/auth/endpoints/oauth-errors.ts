import type { Response } from 'express';
import type { OAuthError } from '../oauth-error';

export function sendOAuthError(res: Response, error: OAuthError, realmIssuer?: string): void {
  if (error.status === 401 && realmIssuer) {
    res.setHeader('WWW-Authenticate', `Basic realm="${realmIssuer}", error="${error.error}"`);
  }
  res
    .status(error.status)
    .setHeader('Cache-Control', 'no-store')
    .json({ error: error.error, error_description: error.description });
}
