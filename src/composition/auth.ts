import type { Services } from '../service-catalog';
import { accountDirectory } from '../auth/accounts';
import { Authenticator } from '../auth/authenticator';
import { clientsFor } from '../auth/oidc/clients';
import { BrokerLogin } from '../auth/brokering/broker-login';
import { BrokerService } from '../auth/brokering/broker.service';
import { BrokerStates } from '../auth/brokering/broker-states';
import { IdentityLinks } from '../auth/brokering/identity-links';
import { IdentityProviders, readIdentityProviders } from '../auth/brokering/identity-providers';
import { registerTokenExchange } from '../auth/brokering/token-exchange';
import { LoginGuard } from '../auth/login-guard';
import { startPasswordBudget } from '../auth/password-budget';
import { Realms } from '../auth/realms';
import { SessionRevocations } from '../auth/session-revocations';
import { SessionsService } from '../auth/sessions.service';
import { TokenVerifier } from '../auth/token-verifier';
import { limitConcurrentHashes } from '../domains/users/password-hash';
import type { DatabaseEvents } from '../infra/database/events';
import type { Foundation, ServiceDependencies } from './foundation';

export type AuthParts = Pick<
  Services,
  'realms' | 'revocations' | 'accountDirectory' | 'guard' | 'broker' | 'brokerLogin' | 'brokerStates'
> & {
  /** The database's notifications; not listening until started, after everything has subscribed. */
  events: DatabaseEvents;
  links: IdentityLinks;
};

/**
 * The realms and what they lean on: brute-force protection, the password budget, identity
 * brokering and session revocation. The realms start here; the database events do not yet.
 */
export async function startAuth(
  { config, logger, orm, baseUrl, secrets }: ServiceDependencies,
  { users, events }: Foundation,
): Promise<AuthParts> {
  const revocations = new SessionRevocations(orm, events, config.accessTokenTtl, logger);
  const accounts = accountDirectory(users, orm);
  limitConcurrentHashes(config.threadpoolSize);
  const guard = new LoginGuard(
    orm,
    accounts,
    logger,
    await startPasswordBudget(config.passwordChecksPerSecond, logger),
  );
  const links = new IdentityLinks();
  const broker = new BrokerService(
    new IdentityProviders(readIdentityProviders(config.identityProvidersFile)),
    links,
    users,
    orm,
  );
  const brokerStates = new BrokerStates(orm);
  const brokerLogin = new BrokerLogin(broker, brokerStates);
  const realms = await Realms.start({
    config,
    orm,
    baseUrl,
    accounts,
    logger,
    revocations,
    events,
    guard,
    clients: clientsFor(config, secrets.devClientSecret, baseUrl),
    extend: (runtime) => registerTokenExchange(runtime, broker, accounts),
  });
  return { events, links, realms, revocations, accountDirectory: accounts, guard, broker, brokerLogin, brokerStates };
}

/** Who a request's token names, and the legacy sessions of Tidepool's login. */
export function sessionServices(
  { config, orm, secrets }: ServiceDependencies,
  { users }: Foundation,
  { realms, revocations, guard }: AuthParts,
): Pick<Services, 'verifier' | 'authenticator' | 'sessions'> {
  const verifier = new TokenVerifier(realms);
  const authenticator = new Authenticator(verifier, revocations);
  const sessions = new SessionsService(realms, users, authenticator, guard, revocations, orm, {
    legacyRealm: config.legacyRealm,
    serverSecret: secrets.serverSecret,
  });
  return { verifier, authenticator, sessions };
}
