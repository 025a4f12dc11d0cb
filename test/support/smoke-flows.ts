import { expect, it } from '@jest/globals';
import { signUp } from './accounts';
import type { TestApp } from './app';
import { call } from './http';

/**
 * The smoke flows: the first things a user does. `test/e2e/smoke.test.ts` runs them on a plain
 * app; `test/e2e/pgbouncer.test.ts` runs them again through PgBouncer. `app` is read when a test
 * runs, after the caller's beforeAll started it.
 */
export function smokeFlows(app: () => TestApp): void {
  it('signs up and reads itself', async () => {
    const alice = await signUp(app());
    const me = await call(app().url, '/auth/user', { token: alice.token });
    expect(me.status).toBe(200);
    expect(me.body.userid).toBe(alice.userid);
  });
}
