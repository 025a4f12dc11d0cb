import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { passwordGrant, signUp } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { call } from '../support/http';

/**
 * Found by `npm run soak` (the database cut): a refresh grant whose database connection was cut
 * after oidc-provider had consumed the old refresh token, but before the new one was saved,
 * answered 503 with Retry-After. The client's retry with the same refresh token was then taken
 * for a replay ("refresh token already used"): invalid_grant, and the whole session ended (its
 * access tokens answer 401). A refresh answered 503 must leave the refresh token usable.
 */
let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.stop();
});

it('keeps the refresh token usable when a refresh grant answers 503', async () => {
  const alice = await signUp(app, 'alice');
  const first = await passwordGrant(app, 'dev1', alice.email, alice.password);
  expect(first.status).toBe(200);
  const refresh = () =>
    call(app.url, '/realms/dev1/protocol/openid-connect/token', {
      form: {
        grant_type: 'refresh_token',
        refresh_token: first.body.refresh_token,
        client_id: 'islet-dev',
        client_secret: app.devClientSecret,
      },
    });
  // The connection is lost where the soak's cut hit: saving the rotated refresh token (57P01 is
  // what PostgreSQL reports to a backend it terminates).
  await app.database.query(
    `create function lose_connection() returns trigger language plpgsql as $$
       begin raise exception 'terminating connection due to administrator command' using errcode = '57P01'; end $$`,
  );
  await app.database.query(
    `create trigger lose_connection before insert on oidc_records for each row
       when (new.model = 'RefreshToken') execute function lose_connection()`,
  );
  const failed = await refresh().finally(() => app.database.query('drop trigger lose_connection on oidc_records'));
  expect(failed.status).toBe(503);
  expect(failed.headers.get('retry-after')).not.toBeNull();

  const retried = await refresh();
  expect({ status: retried.status, error: retried.body.error }).toEqual({ status: 200, error: undefined });
  expect((await call(app.url, '/auth/user', { token: first.body.access_token })).status).toBe(200);
});
