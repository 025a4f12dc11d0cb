import type { Grant, KoaContextWithOIDC } from 'oidc-provider';

/**
 * oidc-provider's `loadExistingGrant`: the session's grant for the client, and for first-party
 * clients one that already holds everything asked for, so they never show a consent screen.
 * Third-party clients get the consent page for whatever their grant lacks.
 */
export async function loadExistingGrant(ctx: KoaContextWithOIDC): Promise<Grant | undefined> {
  const { oidc } = ctx;
  const client = oidc.client!;
  const grantId = oidc.result?.consent?.grantId ?? oidc.session!.grantIdFor(client.clientId);
  let grant = grantId ? await oidc.provider.Grant.find(grantId) : undefined;
  if ((client as unknown as { first_party?: boolean }).first_party !== true) return grant;
  grant ??= new oidc.provider.Grant({ clientId: client.clientId, accountId: oidc.session!.accountId });
  grant.addOIDCScope([...oidc.requestParamOIDCScopes].join(' '));
  for (const [indicator, resourceServer] of Object.entries(oidc.resourceServers ?? {})) {
    const scopes = [...oidc.requestParamScopes].filter((scope) => resourceServer.scopes.has(scope));
    if (scopes.length) grant.addResourceScope(indicator, scopes.join(' '));
  }
  await grant.save();
  return grant;
}
