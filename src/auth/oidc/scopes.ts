import { errors } from 'oidc-provider';

export const SUPPORTED_SCOPES = ['openid', 'email', 'profile', 'offline_access'];

/** Requested scopes, all of which must be supported, or the default set when none were asked for. */
export function grantedScope(requested: Iterable<string>): string {
  const scopes = [...requested];
  const unknown = scopes.filter((scope) => !SUPPORTED_SCOPES.includes(scope));
  if (unknown.length) throw new errors.InvalidScope('requested scope is not supported', unknown.join(' '));
  return (scopes.length ? scopes : ['openid', 'email', 'profile']).join(' ');
}
