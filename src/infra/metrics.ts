import { Counter, Gauge, Registry } from 'prom-client';

/**
 * The service's one Prometheus registry and its metrics, served at `GET /metrics`. Labels
 * name kinds of things (where a password was checked, what was locked), never who: no login
 * names, addresses or ids, which would leak personal data and grow without bound.
 */
export const registry = new Registry();

/** Where a password is checked. */
export type PasswordPath = 'login_page' | 'legacy_login' | 'password_grant' | 'current_password';

/** What repeated failures lock: one account from one source, a source, or an account under attack. */
export type LockKind = 'account_source' | 'source' | 'account';

export const loginFailures = new Counter<'path' | 'reason'>({
  name: 'islet_login_failures_total',
  help: 'Refused password checks, by where the password was checked and why (invalid_credentials or locked).',
  labelNames: ['path', 'reason'],
  registers: [registry],
});

export const loginLockouts = new Counter<'path' | 'lock'>({
  name: 'islet_login_lockouts_total',
  help: 'Lockouts started by repeated failed password checks, by where the last one was checked and what was locked.',
  labelNames: ['path', 'lock'],
  registers: [registry],
});

export const liveSubscriptions = new Gauge<'topic'>({
  name: 'islet_live_subscriptions',
  help: 'GraphQL subscriptions this process serves over WebSocket, by what they follow (user or clinic).',
  labelNames: ['topic'],
  registers: [registry],
});
