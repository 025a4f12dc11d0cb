import { Field, Float, ID, InputType, Int } from 'type-graphql';
import type { PatientFilter } from './patient-list';
import { FILTERABLE_STATS, isIntegerStat } from '../glucose/period-stats';
import { describeStatistic, SummaryPeriodValue } from '../glucose/glucose-summary.types';
import { BgUnitsValue } from '../glucose/glucose-units.types';
import type { KindFilter, SummaryKind } from './patient-filters';

@InputType({
  description:
    'Bounds on a real-valued statistic: each bound given must hold, so `{ gte: 0.5, lt: 0.7 }` is a range. A patient without the statistic (no summary, or too little data for it) never matches.',
})
export class FloatComparison {
  @Field(() => Float, { nullable: true, description: 'Greater than this value.' })
  gt?: number | null;

  @Field(() => Float, { nullable: true, description: 'Greater than or equal to this value.' })
  gte?: number | null;

  @Field(() => Float, { nullable: true, description: 'Less than this value.' })
  lt?: number | null;

  @Field(() => Float, { nullable: true, description: 'Less than or equal to this value.' })
  lte?: number | null;
}

@InputType({
  description:
    'Bounds on a statistic counted in whole minutes or readings: each bound given must hold. A patient without the statistic never matches.',
})
export class IntComparison {
  @Field(() => Int, { nullable: true, description: 'Greater than this value.' })
  gt?: number | null;

  @Field(() => Int, { nullable: true, description: 'Greater than or equal to this value.' })
  gte?: number | null;

  @Field(() => Int, { nullable: true, description: 'Less than this value.' })
  lt?: number | null;

  @Field(() => Int, { nullable: true, description: 'Less than or equal to this value.' })
  lte?: number | null;
}

/** The dates of a kind filter; every other field is a statistic's comparison. */
const DATE_FIELDS = ['lastDataFrom', 'lastDataTo'];

/** Declares a comparison field per statistic of `kind` on `target` (a loop: the list is long and uniform). */
function comparisonFields(target: object, kind: SummaryKind): void {
  const label = kind === 'cgm' ? 'CgmPeriod' : 'BgmPeriod';
  for (const name of [...FILTERABLE_STATS[kind], 'averageGlucose', 'averageGlucoseDelta'])
    Field(() => (isIntegerStat(name) ? IntComparison : FloatComparison), {
      nullable: true,
      description: `${describeStatistic(name, false).replaceAll('`units`', 'the filter’s `units`')} Bounds on ${label}.${name}.`,
    })(target, name);
}

@InputType({
  description:
    'Conditions on the patients’ CGM summary for the filter’s period; all must hold. A field per CgmPeriod statistic, plus the date of the newest reading.',
})
export class CgmPatientFilter {
  @Field(() => Date, {
    nullable: true,
    description: 'Only patients whose newest CGM reading is at or after this time.',
  })
  lastDataFrom?: Date | null;

  @Field(() => Date, { nullable: true, description: 'Only patients whose newest CGM reading is before this time.' })
  lastDataTo?: Date | null;
}
comparisonFields(CgmPatientFilter.prototype, 'cgm');

@InputType({
  description:
    'Conditions on the patients’ fingerstick (BGM) summary for the filter’s period; all must hold. A field per BgmPeriod statistic, plus the date of the newest reading.',
})
export class BgmPatientFilter {
  @Field(() => Date, {
    nullable: true,
    description: 'Only patients whose newest fingerstick reading is at or after this time.',
  })
  lastDataFrom?: Date | null;

  @Field(() => Date, {
    nullable: true,
    description: 'Only patients whose newest fingerstick reading is before this time.',
  })
  lastDataTo?: Date | null;
}
comparisonFields(BgmPatientFilter.prototype, 'bgm');

function kindFilter(given: CgmPatientFilter | BgmPatientFilter | null | undefined): KindFilter | null {
  if (!given) return null;
  const entries = Object.entries(given as Record<string, unknown>);
  return {
    lastDataFrom: given.lastDataFrom ?? null,
    lastDataTo: given.lastDataTo ?? null,
    statistics: Object.fromEntries(entries.filter(([name]) => !DATE_FIELDS.includes(name))) as KindFilter['statistics'],
  };
}

@InputType({ description: 'Which of a clinic’s patients to list; all when empty.' })
export class ClinicPatientFilter {
  @Field(() => String, {
    nullable: true,
    description: 'Text (at most 100 characters) found in the full name, email or MRN, ignoring letter case.',
  })
  search?: string | null;

  @Field(() => [ID], { nullable: true, description: 'Patient tag ids: only patients carrying all of them.' })
  tags?: string[] | null;

  @Field(() => Date, {
    nullable: true,
    description: 'Only patients last reviewed at or before this time; patients never reviewed are left out.',
  })
  lastReviewed?: Date | null;

  @Field(() => SummaryPeriodValue, {
    nullable: true,
    description: 'The summary period `cgm` and `bgm` conditions read; FOURTEEN_DAYS when omitted.',
  })
  period?: SummaryPeriodValue | null;

  @Field(() => BgUnitsValue, {
    nullable: true,
    description:
      'The unit of the glucose bounds in `cgm` and `bgm` (averageGlucose, standardDeviation, min, max and their deltas; averageGlucoseMmol’s are always mmol/L); the clinic’s preferredBgUnits when omitted.',
  })
  units?: BgUnitsValue | null;

  @Field(() => Boolean, {
    nullable: true,
    description:
      'True: `cgm` and `bgm` conditions read the period just before `period` (of the same length) instead; false when omitted.',
  })
  usePreviousPeriod?: boolean | null;

  @Field(() => CgmPatientFilter, { nullable: true, description: 'Conditions on the patients’ CGM summary.' })
  cgm?: CgmPatientFilter | null;

  @Field(() => BgmPatientFilter, { nullable: true, description: 'Conditions on the patients’ fingerstick summary.' })
  bgm?: BgmPatientFilter | null;

  /** The filter as the patients service takes it. */
  static toDomain(filter: ClinicPatientFilter | null): PatientFilter {
    if (!filter) return {};
    const { search, tags, lastReviewed, period, usePreviousPeriod, units, cgm, bgm } = filter;
    const summary =
      cgm || bgm || period || usePreviousPeriod
        ? {
            period: period ?? null,
            previous: usePreviousPeriod ?? null,
            units: units ?? null,
            cgm: kindFilter(cgm),
            bgm: kindFilter(bgm),
          }
        : null;
    return { search, tags, lastReviewed, summary };
  }
}
