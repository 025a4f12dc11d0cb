import { Field, InputType, registerEnumType } from 'type-graphql';
import { FILTERABLE_STATS, statColumn } from '../glucose/period-stats';
import { describeStatistic, GlucoseSummaryKindValue, SummaryPeriodValue } from '../glucose/glucose-summary.types';

/** A statistic's GraphQL enum name: `timeCGMUsePercent` → `TIME_CGM_USE_PERCENT`. */
const enumName = (statistic: string) => statColumn(statistic).toUpperCase();
const SUMMARY_NOTE =
  'Needs `summary` (CGM or BGM) and reads `period` of that summary; patients without the value come first ascending, last descending.';

/**
 * What a clinic's patient list sorts by: the record's fields, the summary dates and every
 * statistic of a CGM summary (BGM summaries have a subset), as an enum of many uniform values.
 */
export const ClinicPatientOrderField = {
  USER_ID: 'userId',
  FULL_NAME: 'fullName',
  BIRTH_DATE: 'birthDate',
  LAST_REVIEWED: 'lastReviewed',
  LAST_DATA: 'lastData',
  LAST_UPLOAD_DATE: 'lastUploadDate',
  FIRST_DATA: 'firstData',
  OUTDATED_SINCE: 'outdatedSince',
  ...Object.fromEntries(FILTERABLE_STATS.cgm.map((name) => [enumName(name), name])),
} as Record<string, string> & {
  USER_ID: 'userId';
  FULL_NAME: 'fullName';
  BIRTH_DATE: 'birthDate';
  LAST_REVIEWED: 'lastReviewed';
};
export type ClinicPatientOrderField = string;

registerEnumType(ClinicPatientOrderField, {
  name: 'ClinicPatientOrderField',
  description:
    'What a clinic’s patient list is sorted by; ties are broken by account id. Summary statistics are those of CgmPeriod and BgmPeriod (percentages as fractions; the order of glucose statistics is the same in either unit).',
  valuesConfig: {
    USER_ID: { description: 'The account id (the default).' },
    FULL_NAME: { description: 'The full name, ignoring letter case.' },
    BIRTH_DATE: { description: 'The birth date; patients without one come first ascending, last descending.' },
    LAST_REVIEWED: { description: 'The last review; patients never reviewed come first ascending, last descending.' },
    LAST_DATA: { description: `The time of the summary’s newest reading. ${SUMMARY_NOTE}` },
    LAST_UPLOAD_DATE: { description: `When the summary’s newest readings were uploaded. ${SUMMARY_NOTE}` },
    FIRST_DATA: { description: `The time of the oldest reading the summary keeps. ${SUMMARY_NOTE}` },
    OUTDATED_SINCE: {
      description: `Since when the summary waits for an update (none when up to date). ${SUMMARY_NOTE}`,
    },
    ...Object.fromEntries(
      FILTERABLE_STATS.cgm.map((name) => [
        enumName(name),
        {
          description: `${describeStatistic(name, false).replaceAll(', in `units`', '')} The period’s \`${name}\`${FILTERABLE_STATS.bgm.includes(name) ? '' : ' (CGM only)'}. ${SUMMARY_NOTE}`,
        },
      ]),
    ),
  },
});

export enum OrderDirection {
  ASC = 'ASC',
  DESC = 'DESC',
}

registerEnumType(OrderDirection, {
  name: 'OrderDirection',
  description: 'Which way a list is sorted.',
  valuesConfig: {
    ASC: { description: 'Smallest (or earliest, or A) first.' },
    DESC: { description: 'Largest (or latest, or Z) first.' },
  },
});

@InputType({ description: 'How to sort a clinic’s patients.' })
export class ClinicPatientOrder {
  @Field(() => ClinicPatientOrderField, { description: 'What to sort by.' })
  field!: ClinicPatientOrderField;

  @Field(() => OrderDirection, { description: 'Which way.' })
  direction!: OrderDirection;

  @Field(() => GlucoseSummaryKindValue, {
    nullable: true,
    description:
      'The summary a statistic or summary date is read from; required to sort by one (BAD_USER_INPUT without it), ignored otherwise.',
  })
  summary?: GlucoseSummaryKindValue | null;

  @Field(() => SummaryPeriodValue, {
    nullable: true,
    description: 'The period of the summary to sort by; FOURTEEN_DAYS when omitted.',
  })
  period?: SummaryPeriodValue | null;

  @Field(() => Boolean, {
    nullable: true,
    description: 'True: sort by the period just before `period` (of the same length) instead; false when omitted.',
  })
  usePreviousPeriod?: boolean | null;
}
