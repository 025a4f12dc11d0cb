import { UNAVAILABLE_RETRY_AFTER_SECONDS } from '../../kernel/errors';
import { OAuthError } from '../oauth-error';
import { messagePage } from '../pages/pages';

/**
 * What an OIDC endpoint says while the database is away: OAuth's `temporarily_unavailable` (RFC
 * 6749 §4.1.2.1), naming only the kind of dependency, never a host, port or path.
 */
export const DATABASE_UNAVAILABLE = 'The database is unavailable; try again shortly';

export function unavailableError(): OAuthError {
  return new OAuthError('temporarily_unavailable', DATABASE_UNAVAILABLE, 503);
}

/**
 * The same in an oidc-provider (Koa) answer being built: 503, Retry-After, and OAuth's JSON
 * unless a page was already rendered.
 */
export function answerUnavailable(ctx: {
  status: number;
  body: unknown;
  set(name: string, value: string): void;
}): void {
  ctx.status = 503;
  ctx.set('Retry-After', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
  ctx.set('Cache-Control', 'no-store');
  if (typeof ctx.body !== 'string') {
    const { error, description } = unavailableError();
    ctx.body = { error, error_description: description };
  }
}

/** The browser's page for the same, on the realm's login pages. */
export function unavailablePage(realm: string): string {
  return messagePage({ realm, title: 'Temporarily unavailable' }, DATABASE_UNAVAILABLE);
}
