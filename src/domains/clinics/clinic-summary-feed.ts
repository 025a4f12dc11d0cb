import type { EntityManager } from '@mikro-orm/postgresql';
import { LiveSubscribers } from '../../kernel/live-subscribers';
import type { Scope } from '../../kernel/scope';
import type { SummaryChange, SummaryFeed } from '../glucose/summary-feed';
import { assertClinicId } from './clinic-ids';
import { assertClinicAccess } from './membership';
import { clinicsOfPatient } from './patients.repository';

/** A change as a clinic's dashboard receives it: the patient's clinic too. */
export interface ClinicSummaryChange extends SummaryChange {
  clinicId: string;
}

/**
 * The summary changes of clinics' patients for this instance's subscribers: each change the
 * glucose feed hears goes to the subscribers of every clinic the user is a patient of. Access is
 * checked when a subscription starts and again before each change (a clinician removed from the
 * clinic, a patient from it), which then ends the subscription with the refusal.
 */
export class ClinicSummaryFeed {
  private readonly byClinic = new LiveSubscribers<ClinicSummaryChange>('clinic');

  constructor(
    summaries: SummaryFeed,
    private readonly em: () => EntityManager,
  ) {
    summaries.onChange((change) => this.receive(change));
  }

  /** The summary changes of a clinic's patients, for its clinicians (and servers). */
  async ofClinic(scope: Scope, clinicId: string): Promise<AsyncIterable<ClinicSummaryChange>> {
    assertClinicId(clinicId);
    const mayFollow = () => assertClinicAccess(scope, clinicId, 'read');
    await mayFollow();
    return this.byClinic.follow(clinicId, mayFollow);
  }

  /** The clinics with subscribers that have this user as a patient: one query per change, none without subscribers. */
  private async receive(change: SummaryChange): Promise<void> {
    if (this.byClinic.size === 0) return;
    for (const clinicId of await clinicsOfPatient(this.em(), change.userId, this.byClinic.keys()))
      this.byClinic.push(clinicId, { ...change, clinicId });
  }
}
