import type { Services } from './service-catalog';
import { accessLogParts } from './composition/access-log';
import { accountLifecycle, wireAccountDeletion } from './composition/account-deletion';
import { sessionServices, startAuth } from './composition/auth';
import { clinicServices } from './composition/clinics';
import { accountMail, careTeamInvitations } from './composition/confirmations';
import { foundation, type ServiceDependencies } from './composition/foundation';
import { startListening } from './composition/listening';
import { startReplicaRouting } from './composition/replicas';
import { storedData } from './composition/stored-data';

/**
 * The composition root of the services; each area's builder is in src/composition/. The order
 * matters where work starts: the password budget and the realms start in startAuth, and the
 * database events start only once everything that listens has subscribed (startListening).
 * `close` stops the timers (access log sweep, revocation pruning), then takes each worker down in turn.
 */
export async function createServices(deps: ServiceDependencies): Promise<Services> {
  const base = foundation(deps);
  const accessLog = accessLogParts(deps, base);
  // Glucose asks the clinics domain, built next, for linked data sources only while serving.
  const stored = storedData(deps, base, (scope, userId) => clinics.tide.userDataSources(scope, userId));
  const clinics = clinicServices(deps, base);
  const invitations = careTeamInvitations(deps, base);
  const lifecycle = accountLifecycle(base);
  const auth = await startAuth(deps, base);
  // Before the database events start, so that they listen to the replicas' announcements too.
  const replicas = await startReplicaRouting(deps, auth.events);
  const feeds = await startListening(deps, base, auth, stored.summaryUpdater);
  const sessions = sessionServices(deps, base, auth);
  const services: Services = {
    access: base.access,
    accessLog: accessLog.accessLog,
    accessSink: accessLog.accessSink,
    users: base.users,
    lifecycle,
    permissions: base.permissions,
    ...stored,
    ...clinics,
    ...feeds,
    mail: base.mailer.queue,
    confirmations: base.confirmations,
    careTeamInvitations: invitations,
    ...accountMail(deps, base, sessions.sessions),
    realms: auth.realms,
    revocations: auth.revocations,
    accountDirectory: auth.accountDirectory,
    guard: auth.guard,
    broker: auth.broker,
    brokerLogin: auth.brokerLogin,
    brokerStates: auth.brokerStates,
    ...sessions,
    close: async (step) => {
      accessLog.stopSweeping();
      auth.revocations.close();
      await step('the glucose summary updater', () => stored.summaryUpdater.close());
      await step('the access log writer', () => accessLog.closeWriter());
      await step('the mail sender', () => base.mailer.close());
      await step('the database event listener', () => auth.events.close());
      if (replicas) await step('the replica monitor', () => replicas.close());
    },
  };
  wireAccountDeletion(services, auth.links);
  return services;
}
