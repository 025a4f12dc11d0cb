import type { Services } from '../service-catalog';
import { SUMMARY_CHANNEL, SummaryFeed } from '../domains/glucose/summary-feed';
import type { SummaryUpdater } from '../domains/glucose/summary-updater';
import { ClinicSummaryFeed } from '../domains/clinics/clinic-summary-feed';
import type { AuthParts } from './auth';
import type { Foundation, ServiceDependencies } from './foundation';

/**
 * The live summary feeds subscribe to the database events, the mail sender too, and only then do
 * the events start listening; session revocations and the summary updater start after them.
 */
export async function startListening(
  { logger, orm }: ServiceDependencies,
  { access, mailer }: Foundation,
  { events, revocations }: AuthParts,
  summaryUpdater: SummaryUpdater,
): Promise<Pick<Services, 'summaryFeed' | 'clinicSummaryFeed'>> {
  const summaryFeed = new SummaryFeed(access, logger);
  const clinicSummaryFeed = new ClinicSummaryFeed(summaryFeed, () => orm.em.fork());
  events.on(SUMMARY_CHANNEL, (payload) => {
    summaryFeed
      .receive(payload)
      .catch((error: unknown) => logger.warn({ err: error }, 'delivering a glucose summary change failed'));
  });
  mailer.start(events);
  await events.start();
  revocations.start();
  summaryUpdater.start();
  return { summaryFeed, clinicSummaryFeed };
}
