import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { periodPartitions, periodStatsColumns } from '../glucose/period-stats-columns';
import { patientListIndexes } from './patient-list-indexes';
import { tideIndexes } from './tide/tide-indexes';

/** The table of the clinic copy, which the patient list's summary filters and sorts read. */
export const CLINIC_PERIOD_STATS_TABLE = 'clinic_patient_period_stats';

/**
 * The period statistics of a clinic's patients, kept per clinic (as Tidepool's clinic service
 * keeps a summary copy on each patient record): a clinic id, then exactly the columns of
 * glucose_period_stats in their order. The database keeps it equal to glucose_period_stats
 * joined with clinic_patients (triggers; why and how, in
 * migrations/Migration20261125020000_clinic_patient_period_stats.ts); no code writes it.
 */
export const ClinicPatientPeriodStatsSchema = defineEntity({
  name: 'ClinicPatientPeriodStats',
  tableName: CLINIC_PERIOD_STATS_TABLE,
  partitionBy: {
    type: 'range',
    expression: ['kind', 'period', 'previous'],
    partitions: periodPartitions(CLINIC_PERIOD_STATS_TABLE),
  },
  properties: {
    clinicId: p.string().primary().length(24),
    userId: p.string().primary().length(36),
    ...periodStatsColumns(),
  },
  // The TIDE report's (src/domains/clinics/tide/tide-indexes.ts) and the patient list's (patient-list-indexes.ts).
  indexes: [...tideIndexes(CLINIC_PERIOD_STATS_TABLE), ...patientListIndexes(CLINIC_PERIOD_STATS_TABLE)],
});

export type ClinicPatientPeriodStatsRecord = InferEntity<typeof ClinicPatientPeriodStatsSchema>;
