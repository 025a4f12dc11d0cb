import type { Request } from 'express';
import type Provider from 'oidc-provider';
import { OAuthError } from '../oauth-error';

type Client = NonNullable<Awaited<ReturnType<Provider['Client']['find']>>>;

function basicCredentials(header: string | undefined): [string, string] | undefined {
  const match = /^basic\s+(\S+)$/i.exec(header ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const separator = decoded.indexOf(':');
  if (separator < 0) throw new OAuthError('invalid_request', 'invalid authorization header value format');
  const decode = (value: string) => decodeURIComponent(value.replace(/\+/g, '%20'));
  return [decode(decoded.slice(0, separator)), decode(decoded.slice(separator + 1))];
}

/**
 * Authenticates the calling client as the token endpoint does (Basic or form credentials,
 * secrets checked against their hashes). Public clients may identify themselves with
 * `client_id` alone where `allowPublic` is set.
 */
export async function authenticateClient(
  provider: Provider,
  req: Request,
  { allowPublic }: { allowPublic: boolean },
): Promise<Client> {
  const form = (req.body ?? {}) as Record<string, string | undefined>;
  const basic = basicCredentials(req.headers.authorization);
  if (basic && form.client_secret)
    throw new OAuthError('invalid_request', 'client authentication must only be provided using one mechanism');
  const [clientId, secret] = basic ?? [form.client_id, form.client_secret];
  if (!clientId) throw new OAuthError('invalid_client', 'client authentication failed', 401);
  const client = await provider.Client.find(clientId);
  if (!client) throw new OAuthError('invalid_client', 'client authentication failed', 401);
  if (client.clientAuthMethod === 'none') {
    if (!allowPublic) throw new OAuthError('invalid_client', 'public clients may not use this endpoint', 401);
    return client;
  }
  if (!secret || !(await client.compareClientSecret(secret)))
    throw new OAuthError('invalid_client', 'client authentication failed', 401);
  return client;
}
