import * as client from 'openid-client';
import type { TestApp } from './app';

/** openid-client configured for one of Islet's realms, as a relying party would be. */
export async function relyingParty(
  app: TestApp,
  realm: string,
  clientId: string,
  secret?: string,
  method: 'basic' | 'post' = 'basic',
) {
  const auth =
    secret === undefined
      ? client.None()
      : method === 'basic'
        ? client.ClientSecretBasic(secret)
        : client.ClientSecretPost(secret);
  return client.discovery(new URL(`${app.url}/realms/${realm}`), clientId, undefined, auth, {
    execute: [client.allowInsecureRequests],
  });
}

export { client };
