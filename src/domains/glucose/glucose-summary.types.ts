import { Field, Float, Int, ObjectType, registerEnumType } from 'type-graphql';
import type { PeriodSummary } from './glucose.service';
import type { ExportedPeriod } from './summary/export';
import { STAT_NAMES, type StatName } from './summary/periods';
import { BGM_STAT_NAMES } from './period-stats';

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

const BANDS: Record<string, string> = {
  VeryLow: 'below 54 mg/dL (3.0 mmol/L)',
  Low: 'from 54 to 70 mg/dL (3.0 to 3.9 mmol/L)',
  AnyLow: 'below 70 mg/dL (3.9 mmol/L)',
  Target: 'in range, 70 to 180 mg/dL (3.9 to 10.0 mmol/L)',
  High: 'from 180 to 250 mg/dL (10.0 to 13.9 mmol/L)',
  VeryHigh: 'above 250 mg/dL (13.9 mmol/L)',
  ExtremeHigh: 'at or above 350 mg/dL (19.4 mmol/L)',
  AnyHigh: 'above 180 mg/dL (10.0 mmol/L)',
};

const OTHER: Record<string, string> = {
  timeCGMUsePercent: 'Share of the period the CGM was worn (minutes of readings / minutes of the period)',
  timeCGMUseMinutes: 'Minutes of CGM readings',
  timeCGMUseRecords: 'CGM readings counted',
  averageGlucoseMmol: 'Mean glucose in mmol/L (time-weighted for CGM)',
  glucoseManagementIndicator: 'Glucose management indicator, % (estimated HbA1c)',
  standardDeviation: 'Standard deviation of glucose in mmol/L',
  coefficientOfVariation: 'Coefficient of variation (standard deviation / mean), a fraction',
  averageDailyRecords: 'Readings per day of the period',
  totalRecords: 'Readings counted',
  hoursWithData: 'Hours with at least one reading',
  daysWithData: 'Days (24-hour windows back from the newest reading) with readings',
  min: 'Lowest reading in mmol/L',
  max: 'Highest reading in mmol/L',
};

/** What a statistic means, for the playground's docs; units as the filters read them. */
function describe(name: string, withheld: boolean): string {
  const delta = name.endsWith('Delta');
  const base = delta ? name.slice(0, -'Delta'.length) : name;
  const range = /^timeIn(\w+?)(Percent|Minutes|Records)$/.exec(base);
  let text = range
    ? { Percent: 'Share of time', Minutes: 'Minutes', Records: 'Readings' }[range[2] as 'Percent'] +
      ` ${BANDS[range[1]!] ?? ''}` +
      (range[2] === 'Percent' ? ', a fraction from 0 to 1' : '')
    : (OTHER[base] ?? base);
  if (delta) text = `Change against the previous period of the same length: ${text[0]!.toLowerCase()}${text.slice(1)}`;
  return `${text}.${withheld ? ' Null when too little data makes it misleading (as Tidepool’s clinic summaries leave it out).' : ''}`;
}

const INTEGER =
  /^(timeIn\w+(Minutes|Records)|timeCGMUse(Minutes|Records)|totalRecords|hoursWithData|daysWithData)(Delta)?$/;

/** Declares each statistic a nullable field of `target` (decorators applied in a loop: the list is long and uniform). */
function statisticFields(target: object, names: readonly string[]): void {
  for (const name of names)
    Field(() => (INTEGER.test(name) ? Int : Float), { nullable: true, description: describe(name, true) })(
      target,
      name,
    );
}

const withDeltas = (names: readonly StatName[]) => names.flatMap((name) => [name, `${name}Delta`]);

// The summary types are plain data (no field resolvers): `simpleResolvers` lets GraphQL read each
// field as a property instead of through type-graphql's per-field middleware wrapper, and a page
// of 50 patients reads about 14,000 of them.

@ObjectType({
  simpleResolvers: true,
  description:
    'CGM statistics of one period (Tidepool’s summary): percentages are fractions from 0 to 1, glucose in mmol/L, with each statistic’s change against the previous period.',
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

  static from(period: ExportedPeriod): CgmPeriod {
    return asPeriod<CgmPeriod>(period);
  }
}
export const CGM_FIELDS = withDeltas(STAT_NAMES);
statisticFields(CgmPeriod.prototype, CGM_FIELDS);

@ObjectType({
  simpleResolvers: true,
  description:
    'Fingerstick (BGM) statistics of one period (Tidepool’s summary), by count of readings: percentages are fractions from 0 to 1, glucose in mmol/L.',
})
export class BgmPeriod {
  static from(period: ExportedPeriod): BgmPeriod {
    return asPeriod<BgmPeriod>(period);
  }
}
export const BGM_FIELDS = withDeltas(BGM_STAT_NAMES);
statisticFields(BgmPeriod.prototype, BGM_FIELDS);

/**
 * The exported period itself as the GraphQL object: GraphQL reads only the fields asked for, and a
 * statistic the clinic copy leaves out reads as null. A page of 50 patients has 200 periods, and
 * copying each one's 150 values into an object of its own was a good part of the page's garbage.
 */
function asPeriod<T>(period: ExportedPeriod): T {
  return period as unknown as T;
}

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

  static from(summaries: readonly PeriodSummary[]): GlucoseSummary {
    const side = <T>(kind: 'cgm' | 'bgm', make: () => T, period: (values: ExportedPeriod) => object) => {
      const summary = summaries.find((candidate) => candidate.kind === kind);
      if (!summary) return null;
      const dates = Object.assign(new SummaryDates(), summary.dates);
      const made = Object.assign(make() as object, { dates, period: period(summary.period) });
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
