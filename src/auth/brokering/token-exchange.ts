import { errors, type KoaContextWithOIDC } from 'oidc-provider';
import type { AccountDirectory } from '../accounts';
import { isTrustedPartner, TOKEN_EXCHANGE_GRANT } from '../oidc/clients';
import { issueUserTokens } from '../oidc/issue-tokens';
import { grantedScope } from '../oidc/scopes';
import { invalidGrant } from '../oidc/password-grant';
import type { RealmRuntime } from '../realms';
import { InvalidSubjectToken, type BrokerService } from './broker.service';

export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
export const REFRESH_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:refresh_token';
export const JWT_TYPE = 'urn:ietf:params:oauth:token-type:jwt';

const SUBJECT_TYPES: Record<string, 'access_token' | 'jwt'> = {
  [ACCESS_TOKEN_TYPE]: 'access_token',
  [JWT_TYPE]: 'jwt',
};
const REQUESTED_TYPES = [ACCESS_TOKEN_TYPE, REFRESH_TOKEN_TYPE];

function param(ctx: KoaContextWithOIDC, name: string): string | undefined {
  const value = ctx.oidc.params?.[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function required(ctx: KoaContextWithOIDC, name: string): string {
  const value = param(ctx, name);
  if (value === undefined) throw new errors.InvalidRequest(`missing required parameter '${name}'`);
  return value;
}

/**
 * RFC 8693 token exchange for trusted partners, as Keycloak's external-to-internal exchange: a
 * token from a configured identity provider becomes this realm's tokens for the linked (or
 * newly provisioned) account.
 */
export function registerTokenExchange(runtime: RealmRuntime, broker: BrokerService, accounts: AccountDirectory): void {
  const { provider, realm, resourceServer } = runtime;
  provider.registerGrantType(
    TOKEN_EXCHANGE_GRANT,
    async (ctx: KoaContextWithOIDC) => {
      const client = ctx.oidc.client!;
      if (!isTrustedPartner(client as never))
        throw new errors.UnauthorizedClient('token exchange is only available to trusted partner clients');
      const subjectToken = required(ctx, 'subject_token');
      const subjectType = SUBJECT_TYPES[required(ctx, 'subject_token_type')];
      if (!subjectType)
        throw new errors.InvalidRequest(`subject_token_type must be ${ACCESS_TOKEN_TYPE} or ${JWT_TYPE}`);
      const requestedType = param(ctx, 'requested_token_type') ?? ACCESS_TOKEN_TYPE;
      if (!REQUESTED_TYPES.includes(requestedType))
        throw new errors.InvalidRequest(`requested_token_type must be ${REQUESTED_TYPES.join(' or ')}`);
      const scope = grantedScope(ctx.oidc.requestParamScopes);
      const issuer = required(ctx, 'subject_issuer');
      const identityProvider = broker.providers.find(realm, issuer);
      if (!identityProvider)
        throw new errors.InvalidRequest(`subject_issuer "${issuer}" is not an identity provider of this realm`);

      let identity;
      try {
        identity = await broker.identityFromSubjectToken(realm, identityProvider, subjectToken, subjectType);
      } catch (error) {
        if (error instanceof InvalidSubjectToken) throw invalidGrant('Invalid subject token', error.message);
        throw error;
      }
      const resolution = await broker.resolve(realm, identityProvider.alias, identity, null);
      if ('existingEmail' in resolution) {
        // Keycloak's answer: the account exists but is not linked to this provider.
        const conflict = new errors.InvalidRequest('User already exists');
        conflict.statusCode = 409;
        throw conflict;
      }
      if ('missingEmail' in resolution)
        throw invalidGrant('The subject token carries no email address to provision an account from');

      const account = await accounts.findById(resolution.userId);
      const { grantId: _grantId, ...tokens } = await issueUserTokens(provider, resourceServer, {
        accountId: resolution.userId,
        client,
        scope,
        gty: TOKEN_EXCHANGE_GRANT,
        refreshToken: requestedType === REFRESH_TOKEN_TYPE,
        idTokenClaims: account ? accounts.claims(account) : undefined,
        ctx,
      });
      ctx.body = { ...tokens, issued_token_type: requestedType };
    },
    ['subject_token', 'subject_token_type', 'requested_token_type', 'subject_issuer', 'scope', 'audience'],
  );
}
