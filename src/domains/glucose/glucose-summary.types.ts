import { Field, Float, Int, ObjectType, registerEnumType } from 'type-graphql';
import type { PeriodSummary, SummarySource } from './glucose.service';
import type { ExportedPeriod } from './summary/export';
import { BgUnitsValue } from './glucose-units.types';
import { BGM_STAT_NAMES, isGlucoseStat, isIntegerStat } from './period-stats';
import { STAT_NAMES } from './summary/statistics';
import { fromMmol, type GlucoseUnits } from './summary/units';

/** Summary periods: UPPER_SNAKE_CASE in GraphQL, Tidepool's keys inside. */
export enum SummaryPeriodValue {
  ONE_DAY = '1d',
  SEVEN_DAYS = '7d',
  FOURTEEN_DAYS = '14d',
  THIRTY_DAYS = '30d',
}
registerEnumType(SummaryPeriodValue, {
  name: 'SummaryPeriod',
  description: 'How far back a summary looks from the hour of the newest reading.',
  valuesConfig: {
    ONE_DAY: { description: 'The last 24 hours with data.' },
    SEVEN_DAYS: { description: 'The last 7 days.' },
    FOURTEEN_DAYS: { description: 'The last 14 days (the clinic default).' },
    THIRTY_DAYS: { description: 'The last 30 days.' },
  },
});

/** The period argument of a summary field: Tidepool's clinic default when omitted. */
export const PERIOD_ARG = {
  defaultValue: SummaryPeriodValue.FOURTEEN_DAYS,
  description: 'How far back to look; 14 days when omitted.',
};

export enum GlucoseSummaryKindValue {
  CGM = 'cgm',
  BGM = 'bgm',
}

registerEnumType(GlucoseSummaryKindValue, {
  name: 'GlucoseSummaryKind',
  description: 'Which of an account’s glucose summaries: from CGM readings or from fingersticks.',
  valuesConfig: {
    CGM: { description: 'The summary of continuous glucose monitor readings.' },
    BGM: { description: 'The summary of fingerstick (blood glucose meter) readings.' },
  },
});

export enum GlycemiaRiskZoneValue {
  A = 'A',
  B = 'B',
  C = 'C',
  D = 'D',
  E = 'E',
}
registerEnumType(GlycemiaRiskZoneValue, {
  name: 'GlycemiaRiskZone',
  description: 'The zone of the glycemia risk index, A (lowest risk) to E.',
  valuesConfig: {
    A: { description: 'Index 0 to 20.' },
    B: { description: 'Index above 20 to 40.' },
    C: { description: 'Index above 40 to 60.' },
    D: { description: 'Index above 60 to 80.' },
    E: { description: 'Index above 80.' },
  },
});

/** The consensus name (Battelino 2019) and the glucose band of each time-in-ranges statistic. */
const BANDS: Record<string, [string, string]> = {
  VeryLow: ['Time below range (TBR) level 2', 'below 54 mg/dL (3.0 mmol/L)'],
  Low: ['Time below range (TBR) level 1', 'from 54 to below 70 mg/dL (3.0 to 3.9 mmol/L)'],
  AnyLow: ['Time below range (TBR)', 'below 70 mg/dL (3.9 mmol/L), levels 1 and 2'],
  Target: ['Time in range (TIR)', 'from 70 to 180 mg/dL (3.9 to 10.0 mmol/L)'],
  High: ['Time above range (TAR) level 1', 'above 180 to 250 mg/dL (10.0 to 13.9 mmol/L)'],
  VeryHigh: ['Time above range (TAR) level 2', 'above 250 mg/dL (13.9 mmol/L)'],
  ExtremeHigh: ['Time extremely high (part of TAR level 2)', 'at or above 350 mg/dL (19.4 mmol/L)'],
  AnyHigh: ['Time above range (TAR)', 'above 180 mg/dL (10.0 mmol/L), levels 1 and 2'],
};

const FRACTION = 'a fraction from 0 to 1 (0.58 = 58%)';

/** The consensus name and definition of each other statistic. */
const OTHER: Record<string, [string, string]> = {
  timeCGMUsePercent: [
    'Time CGM active',
    `share of the period the CGM was worn (minutes with readings / minutes of the period), ${FRACTION}`,
  ],
  timeCGMUseMinutes: ['Time CGM active, in minutes', 'minutes with CGM readings'],
  timeCGMUseRecords: ['Time CGM active, in readings', 'CGM readings counted'],
  averageGlucose: ['Mean glucose', 'the average glucose, in `units` (time-weighted for CGM)'],
  averageGlucoseMmol: [
    'Mean glucose in mmol/L',
    'the average glucose in mmol/L whatever `units` says (time-weighted for CGM); `averageGlucose` holds it in `units`',
  ],
  glucoseManagementIndicator: [
    'Glucose management indicator (GMI)',
    'the HbA1c estimated from mean glucose (Bergenstal 2018), in % (7.1 = 7.1%)',
  ],
  standardDeviation: ['Standard deviation (SD)', 'the spread of glucose around its mean, in `units`'],
  coefficientOfVariation: [
    'Coefficient of variation (CV)',
    'standard deviation / mean glucose, a fraction (0.36 = 36%, the consensus target’s upper end)',
  ],
  averageDailyRecords: ['Readings per day', 'readings counted / days of the period'],
  totalRecords: ['Readings', 'readings counted'],
  hoursWithData: ['Hours with data', 'hours with at least one reading'],
  daysWithData: ['Days with data', 'days (24-hour windows back from the newest reading) with readings'],
  min: ['Minimum glucose', 'the lowest reading, in `units`'],
  max: ['Maximum glucose', 'the highest reading, in `units`'],
};

const RANGE_KIND = {
  Percent: ['', `share of time {band} (of readings, for fingersticks), ${FRACTION}`],
  Minutes: [', in minutes', 'minutes {band}'],
  Records: [', in readings', 'readings {band}'],
} as const;

/** The consensus name and definition of a statistic (no delta). */
function nameAndDefinition(name: string): [string, string] {
  const range = /^timeIn(\w+?)(Percent|Minutes|Records)$/.exec(name);
  if (!range) return OTHER[name] ?? [name, name];
  const [consensus, band] = BANDS[range[1]!]!;
  const [suffix, definition] = RANGE_KIND[range[2] as keyof typeof RANGE_KIND];
  return [consensus + suffix, definition.replace('{band}', band)];
}

/**
 * What a statistic means, for the docs pane: its consensus name first (so "time in range", "TIR"
 * or "GMI" finds it), then its definition and unit.
 */
export function describeStatistic(name: string, withheld: boolean): string {
  const delta = name.endsWith('Delta');
  const [consensus, definition] = nameAndDefinition(delta ? name.slice(0, -'Delta'.length) : name);
  const text = delta
    ? `${consensus}, change against the previous period of the same length (this one minus that one): ${definition.replace('from 0 to 1', 'from -1 to 1')}.`
    : `${consensus}: ${definition}.`;
  return `${text}${withheld ? ' Null when too little data makes it misleading (as Tidepool’s clinic summaries leave it out).' : ''}`;
}

/** Declares each statistic a nullable field of `target` (decorators applied in a loop: the list is long and uniform). */
function statisticFields(target: object, names: readonly string[]): void {
  for (const name of names)
    Field(() => (isIntegerStat(name) ? Int : Float), { nullable: true, description: describeStatistic(name, true) })(
      target,
      name,
    );
}

const withDeltas = (names: readonly string[]) => names.flatMap((name) => [name, `${name}Delta`]);

/** Tidepool's statistics of each kind of period (summary/statistics.ts), with their deltas. */
export const CGM_FIELDS = withDeltas(STAT_NAMES);
export const BGM_FIELDS = withDeltas(BGM_STAT_NAMES);
/** Islet's own: the mean glucose in the units asked for. */
const IN_UNITS_FIELDS = withDeltas(['averageGlucose']);

/** The unit of a period's glucose statistics, stated beside them. */
function unitsField(target: object): void {
  Field(() => BgUnitsValue, {
    description:
      'The unit of this period’s glucose statistics: averageGlucose, standardDeviation, min, max and their deltas (not averageGlucoseMmol, always in mmol/L).',
  })(target, 'units');
}

/**
 * The exported period as the GraphQL object, its glucose statistics in `units`: an object whose
 * prototype is the period, holding only the converted values. GraphQL reads only the fields
 * asked for, and a statistic the clinic copy leaves out reads as null. A page of 50 patients has
 * 200 periods, and copying each one's 150 values into an object of its own was a good part of
 * the page's garbage.
 */
function inUnits<T>(period: ExportedPeriod, units: GlucoseUnits): T {
  const values = period as Record<string, number | undefined>;
  const converted: PropertyDescriptorMap = { units: { value: units } };
  for (const [name, field] of GLUCOSE_FIELDS) {
    const value = values[name];
    if (value !== undefined) converted[field] = { value: fromMmol(value, units), enumerable: true };
  }
  return Object.create(period, converted) as T;
}

/** Each glucose statistic a period may hold, and the field answering it in the units asked. */
const GLUCOSE_FIELDS = CGM_FIELDS.filter(isGlucoseStat).map(
  (name) => [name, name.replace('averageGlucoseMmol', 'averageGlucose')] as const,
);

// The summary types are plain data (no field resolvers): `simpleResolvers` lets GraphQL read each
// field as a property instead of through type-graphql's per-field middleware wrapper, and a page
// of 50 patients reads about 14,000 of them.

@ObjectType({
  simpleResolvers: true,
  description:
    'CGM statistics of one period (Tidepool’s summary): percentages are fractions from 0 to 1, glucose in the `units` it states, with each statistic’s change against the previous period.',
})
export class CgmPeriod {
  @Field(() => Float, {
    nullable: true,
    description: 'Glycemia risk index (Klonoff 2022), 0 to 100; null when the time-in-range shares are withheld.',
  })
  glycemiaRiskIndex!: number | null;

  @Field(() => GlycemiaRiskZoneValue, {
    nullable: true,
    description: 'The zone of the glycemia risk index; null with it.',
  })
  glycemiaRiskZone!: GlycemiaRiskZoneValue | null;

  units!: GlucoseUnits;

  static from(period: ExportedPeriod, units: GlucoseUnits): CgmPeriod {
    return inUnits<CgmPeriod>(period, units);
  }
}
unitsField(CgmPeriod.prototype);
statisticFields(CgmPeriod.prototype, [...CGM_FIELDS, ...IN_UNITS_FIELDS]);

@ObjectType({
  simpleResolvers: true,
  description:
    'Fingerstick (BGM) statistics of one period (Tidepool’s summary), by count of readings: percentages are fractions from 0 to 1, glucose in the `units` it states.',
})
export class BgmPeriod {
  units!: GlucoseUnits;

  static from(period: ExportedPeriod, units: GlucoseUnits): BgmPeriod {
    return inUnits<BgmPeriod>(period, units);
  }
}
unitsField(BgmPeriod.prototype);
statisticFields(BgmPeriod.prototype, [...BGM_FIELDS, ...IN_UNITS_FIELDS]);

@ObjectType({ simpleResolvers: true, description: 'When a summary’s data begins and ends, and when it was computed.' })
export class SummaryDates {
  @Field(() => Date, { description: 'The newest reading counted (within two years back and a day ahead).' })
  lastData!: Date;

  @Field(() => Date, {
    nullable: true,
    description: 'The oldest reading the summary keeps (at most 60 days before `lastData`).',
  })
  firstData!: Date | null;

  @Field(() => Date, { nullable: true, description: 'When the newest of those readings was uploaded.' })
  lastUploadDate!: Date | null;

  @Field(() => Date, { nullable: true, description: 'When the summary was last computed.' })
  lastUpdatedDate!: Date | null;

  @Field(() => Date, {
    nullable: true,
    description:
      'Set while uploads the summary has not counted yet wait (usually under a second); null when it is current.',
  })
  outdatedSince!: Date | null;
}

@ObjectType({
  simpleResolvers: true,
  description: 'A CGM summary for one period: its dates, the period and the one before it.',
})
export class CgmSummary {
  @Field(() => SummaryDates, { description: 'The data the summary covers.' })
  dates!: SummaryDates;

  @Field(() => CgmPeriod, { description: 'The period asked for, ending at the hour of the newest reading.' })
  period!: CgmPeriod;

  // Not simple: it is read when asked for, so it resolves to a promise (which only a resolver may return).
  @Field(() => CgmPeriod, { simple: false, description: 'The period of the same length just before it.' })
  previousPeriod!: Promise<CgmPeriod>;

  /** Whose summary this is and how it was read (not a field: the AGP's resolver reads it). */
  source!: SummarySource;
}

@ObjectType({
  simpleResolvers: true,
  description: 'A fingerstick summary for one period: its dates, the period and the one before it.',
})
export class BgmSummary {
  @Field(() => SummaryDates, { description: 'The data the summary covers.' })
  dates!: SummaryDates;

  @Field(() => BgmPeriod, { description: 'The period asked for, ending at the hour of the newest reading.' })
  period!: BgmPeriod;

  // Not simple: it is read when asked for, so it resolves to a promise (which only a resolver may return).
  @Field(() => BgmPeriod, { simple: false, description: 'The period of the same length just before it.' })
  previousPeriod!: Promise<BgmPeriod>;
}

@ObjectType({
  simpleResolvers: true,
  description: 'Glucose statistics of an account for one period, from CGM and from fingersticks.',
})
export class GlucoseSummary {
  @Field(() => CgmSummary, { nullable: true, description: 'From CGM readings; null when there are none.' })
  cgm!: CgmSummary | null;

  @Field(() => BgmSummary, { nullable: true, description: 'From fingerstick readings; null when there are none.' })
  bgm!: BgmSummary | null;

  /** The summaries, their glucose statistics in `units`. */
  static from(summaries: readonly PeriodSummary[], units: GlucoseUnits): GlucoseSummary {
    const side = <T>(
      kind: 'cgm' | 'bgm',
      make: () => T,
      from: (values: ExportedPeriod, units: GlucoseUnits) => object,
    ) => {
      const period = (values: ExportedPeriod) => from(values, units);
      const summary = summaries.find((candidate) => candidate.kind === kind);
      if (!summary) return null;
      const dates = Object.assign(new SummaryDates(), summary.dates);
      const made = Object.assign(make() as object, { dates, period: period(summary.period), source: summary.source });
      // Read only when asked for: a patient list shows current periods only.
      Object.defineProperty(made, 'previousPeriod', {
        enumerable: true,
        get: () => summary.previous.then(period),
      });
      return made as T;
    };
    return Object.assign(new GlucoseSummary(), {
      cgm: side('cgm', () => new CgmSummary(), CgmPeriod.from),
      bgm: side('bgm', () => new BgmSummary(), BgmPeriod.from),
    });
  }
}
