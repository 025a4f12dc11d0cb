import type { IncomingHttpHeaders } from 'node:http';
import { unauthenticated } from '../kernel/errors';

export const SESSION_TOKEN_HEADER = 'x-tidepool-session-token';

/**
 * The access token a request carries: `X-Tidepool-Session-Token` (raw, or Tidepool's
 * `kc:<access>:<refresh>` form) or `Authorization: Bearer`. Basic credentials are not tokens.
 */
export function presentedToken(headers: IncomingHttpHeaders): string | null {
  const session = headers[SESSION_TOKEN_HEADER];
  if (Array.isArray(session)) throw unauthenticated('Send one X-Tidepool-Session-Token header, not several');
  if (session !== undefined && session.trim() !== '') {
    const value = session.trim();
    return value.startsWith('kc:') ? (value.split(':')[1] ?? '') : value;
  }
  const authorization = headers.authorization?.trim();
  if (!authorization) return null;
  const [scheme, token, ...rest] = authorization.split(/\s+/);
  if (scheme.toLowerCase() !== 'bearer') return null;
  if (!token || rest.length) throw unauthenticated('Authorization header must be "Bearer <token>"');
  return token;
}
