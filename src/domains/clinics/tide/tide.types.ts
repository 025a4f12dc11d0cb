import { Field, Float, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { describeStatistic, SummaryPeriodValue } from '../../glucose/glucose-summary.types';
import { BgUnitsValue } from '../../glucose/glucose-units.types';
import { fromMmol, type GlucoseUnits } from '../../glucose/summary/units';
import { ClinicPatient } from '../patients.types';
import { TIDE_CONFIG_FILTERS, TIDE_SCHEMA_VERSION, TIDE_THRESHOLDS, type TideCategoryKey } from './categories';
import type { PatientDataSource as PatientDataSourceRecord } from './data-sources';
import type { TideReportData } from './tide.service';
import type { TideRow } from './tide.repository';

/** The categories: UPPER_SNAKE_CASE in GraphQL, Tidepool's `results` keys inside. */
export enum TideCategoryValue {
  TIME_IN_VERY_LOW_PERCENT = 'timeInVeryLowPercent',
  TIME_IN_ANY_LOW_PERCENT = 'timeInAnyLowPercent',
  TIME_IN_VERY_HIGH_PERCENT = 'timeInVeryHighPercent',
  TIME_IN_ANY_HIGH_PERCENT = 'timeInAnyHighPercent',
  DROP_IN_TIME_IN_TARGET_PERCENT = 'dropInTimeInTargetPercent',
  TIME_CGM_USE_PERCENT = 'timeCGMUsePercent',
  MEETING_TARGETS = 'meetingTargets',
  TIME_IN_TARGET_PERCENT = 'timeInTargetPercent',
  TIME_IN_EXTREME_HIGH_PERCENT = 'timeInExtremeHighPercent',
}

registerEnumType(TideCategoryValue, {
  name: 'TideCategory',
  description:
    'A TIDE report category: a test on a patient’s CGM statistics of the period (fractions from 0 to 1). A patient lands in the first category it meets, in the order asked.',
  valuesConfig: {
    TIME_IN_VERY_LOW_PERCENT: {
      description: 'More than 1% of the time below 54 mg/dL (3.0 mmol/L); most first. Default priority 1.',
    },
    TIME_IN_ANY_LOW_PERCENT: {
      description: 'More than 4% of the time below 70 mg/dL (3.9 mmol/L); most first. Default priority 2.',
    },
    TIME_IN_VERY_HIGH_PERCENT: {
      description: 'More than 5% of the time above 250 mg/dL (13.9 mmol/L); most first. Default priority 3.',
    },
    TIME_IN_ANY_HIGH_PERCENT: {
      description: 'More than 25% of the time above 180 mg/dL (10.0 mmol/L); most first. Default priority 4.',
    },
    DROP_IN_TIME_IN_TARGET_PERCENT: {
      description:
        'Time in target dropped by more than 15 points against the previous period; largest drop first. Default priority 5.',
    },
    TIME_CGM_USE_PERCENT: { description: 'CGM worn less than 70% of the period; least first. Default priority 6.' },
    MEETING_TARGETS: {
      description:
        'At least 70% in target and 70% CGM wear, and none of the low, high or extreme-high tests met; most time in target first. Default priority 7.',
    },
    TIME_IN_TARGET_PERCENT: {
      description: 'Less than 70% of the time in target (70-180 mg/dL); least first. Only when asked for.',
    },
    TIME_IN_EXTREME_HIGH_PERCENT: {
      description: 'At least 1% of the time above 350 mg/dL (19.4 mmol/L); most first. Only when asked for.',
    },
  },
});

export enum DataSourceStateValue {
  PENDING = 'pending',
  PENDING_RECONNECT = 'pendingReconnect',
  CONNECTED = 'connected',
  DISCONNECTED = 'disconnected',
  ERROR = 'error',
}

registerEnumType(DataSourceStateValue, {
  name: 'DataSourceState',
  description: 'Whether a cloud data source imports data.',
  valuesConfig: {
    PENDING: { description: 'The patient started linking it; not importing yet.' },
    PENDING_RECONNECT: { description: 'It needs the patient to link it again.' },
    CONNECTED: { description: 'Linked and importing.' },
    DISCONNECTED: { description: 'The patient or the provider ended the link: nothing imports.' },
    ERROR: { description: 'Importing failed.' },
  },
});

const STATES: readonly string[] = Object.values(DataSourceStateValue);

@ObjectType({
  description:
    'A cloud account (Dexcom, Abbott, ...) the patient linked so its data imports, as the data-source service last reported it.',
})
export class PatientDataSource {
  @Field(() => ID, {
    nullable: true,
    description: 'The data source id (24 hexadecimal characters); null when not reported.',
  })
  dataSourceId!: string | null;

  @Field({ description: 'The provider, e.g. `dexcom`, `abbott`, `twiist`.' })
  providerName!: string;

  @Field(() => DataSourceStateValue, { description: 'Whether it imports.' })
  state!: DataSourceStateValue;

  @Field(() => Date, { nullable: true, description: 'When its state last changed; null when not reported.' })
  modifiedTime!: Date | null;

  @Field(() => Date, { nullable: true, description: 'When its authorization expires; null when not reported.' })
  expirationTime!: Date | null;

  @Field(() => Date, { nullable: true, description: 'Time of the newest data it imported; null when not reported.' })
  latestDataTime!: Date | null;

  static from(source: PatientDataSourceRecord): PatientDataSource {
    const date = (value: string | undefined) => (value === undefined ? null : new Date(value));
    // The enum's values are the stored strings.
    const state = STATES.includes(source.state) ? source.state : DataSourceStateValue.ERROR;
    return Object.assign(new PatientDataSource(), {
      dataSourceId: source.dataSourceId ?? null,
      providerName: source.providerName,
      state: state as DataSourceStateValue,
      modifiedTime: date(source.modifiedTime),
      expirationTime: date(source.expirationTime),
      latestDataTime: date(source.latestDataTime),
    });
  }
}

@ObjectType({
  description:
    'Glucose thresholds the categories stand on: in the `units` stated, and (fields ending in Mmol) in mmol/L.',
})
export class TideThresholds {
  @Field(() => BgUnitsValue, { description: 'The unit of the thresholds whose names do not end in Mmol.' })
  units!: GlucoseUnits;

  @Field(() => Float, { description: 'Very low: below 54 mg/dL (3.0 mmol/L), exclusive; in `units`.' })
  veryLowGlucose!: number;

  @Field(() => Float, { description: 'Low: below 70 mg/dL (3.9 mmol/L), exclusive; in `units`.' })
  lowGlucose!: number;

  @Field(() => Float, { description: 'High: above 180 mg/dL (10.0 mmol/L), exclusive; in `units`.' })
  highGlucose!: number;

  @Field(() => Float, { description: 'Very high: above 250 mg/dL (13.9 mmol/L), exclusive; in `units`.' })
  veryHighGlucose!: number;

  @Field(() => Float, { description: 'Extreme high: 350 mg/dL (19.4 mmol/L) or above, inclusive; in `units`.' })
  extremeHighGlucose!: number;

  @Field(() => Float, { description: 'Very low: below 3.0 mmol/L (54 mg/dL), exclusive.' })
  veryLowGlucoseMmol!: number;

  @Field(() => Float, { description: 'Low: below 3.9 mmol/L (70 mg/dL), exclusive.' })
  lowGlucoseMmol!: number;

  @Field(() => Float, { description: 'High: above 10.0 mmol/L (180 mg/dL), exclusive.' })
  highGlucoseMmol!: number;

  @Field(() => Float, { description: 'Very high: above 13.9 mmol/L (250 mg/dL), exclusive.' })
  veryHighGlucoseMmol!: number;

  @Field(() => Float, { description: 'Extreme high: 19.4 mmol/L (350 mg/dL) or above, inclusive.' })
  extremeHighGlucoseMmol!: number;
}

@ObjectType({ description: 'A filter the report shows as applied, e.g. `timeInVeryLowPercent` `>0.01`.' })
export class TideFilter {
  @Field({ description: 'The statistic or category it tests, by Tidepool’s name (e.g. `dropInTimeInTargetPercent`).' })
  name!: string;

  @Field({ description: 'The test: an operator and a fraction, e.g. `>0.04` or `<-0.15`.' })
  expression!: string;
}

@ObjectType({ description: 'What a TIDE report was asked and the constants it applied.' })
export class TideConfig {
  @Field(() => Int, { description: 'The report format’s version (2, as Tidepool’s).' })
  schemaVersion!: number;

  @Field(() => ID, { description: 'The clinic.' })
  clinicId!: string;

  @Field(() => SummaryPeriodValue, { description: 'The period whose statistics were read.' })
  period!: SummaryPeriodValue;

  @Field(() => Date, {
    description: 'Patients whose newest CGM data is older than this are left out of the categories.',
  })
  lastDataCutoff!: Date;

  @Field(() => [ID], { description: 'The tag ids every patient in the report carries.' })
  tagIds!: string[];

  @Field(() => [TideCategoryValue], { description: 'The categories asked, in priority order.' })
  categories!: TideCategoryValue[];

  @Field(() => TideThresholds, { description: 'The glucose thresholds, in the units asked and in mmol/L.' })
  thresholds!: TideThresholds;

  @Field(() => [TideFilter], { description: 'The filters Tidepool’s report shows (always the same five).' })
  filters!: TideFilter[];
}

@ObjectType({
  description:
    'A patient in the TIDE report with its CGM statistics of the period. Percentages are fractions from 0 to 1; a statistic is null where too little data makes it misleading (as Tidepool’s clinic copy leaves it out).',
})
export class TideEntry {
  @Field(() => ClinicPatient, { description: 'The clinic’s record of the patient.' })
  patient!: ClinicPatient;

  /** Data sources read with the row, for the REST mapping's convenience; GraphQL asks patient.dataSources. */
  dataSources!: PatientDataSourceRecord[] | null;

  @Field(() => Date, { nullable: true, description: 'Time of the newest CGM reading; null when the patient has none.' })
  lastData!: Date | null;

  @Field(() => BgUnitsValue, { description: 'The unit of averageGlucose.' })
  units!: GlucoseUnits;

  @Field(() => Float, { nullable: true, description: describeStatistic('averageGlucose', true) })
  averageGlucose!: number | null;

  @Field(() => Float, { nullable: true, description: describeStatistic('averageGlucoseMmol', true) })
  averageGlucoseMmol!: number | null;

  @Field(() => Float, { nullable: true, description: describeStatistic('glucoseManagementIndicator', true) })
  glucoseManagementIndicator!: number | null;

  @Field(() => Int, { nullable: true, description: describeStatistic('timeCGMUseMinutes', true) })
  timeCGMUseMinutes!: number | null;

  @Field(() => Float, { nullable: true, description: describeStatistic('timeCGMUsePercent', true) })
  timeCGMUsePercent!: number | null;

  @Field(() => Float, { nullable: true, description: describeStatistic('timeInVeryLowPercent', true) })
  timeInVeryLowPercent!: number | null;

  @Field(() => Float, { nullable: true, description: describeStatistic('timeInLowPercent', true) })
  timeInLowPercent!: number | null;

  @Field(() => Float, { nullable: true, description: describeStatistic('timeInAnyLowPercent', true) })
  timeInAnyLowPercent!: number | null;

  @Field(() => Float, { nullable: true, description: describeStatistic('timeInTargetPercent', true) })
  timeInTargetPercent!: number | null;

  @Field(() => Float, { nullable: true, description: describeStatistic('timeInTargetPercentDelta', true) })
  timeInTargetPercentDelta!: number | null;

  @Field(() => Float, { nullable: true, description: describeStatistic('timeInHighPercent', true) })
  timeInHighPercent!: number | null;

  @Field(() => Float, { nullable: true, description: describeStatistic('timeInVeryHighPercent', true) })
  timeInVeryHighPercent!: number | null;

  @Field(() => Float, { nullable: true, description: describeStatistic('timeInExtremeHighPercent', true) })
  timeInExtremeHighPercent!: number | null;

  @Field(() => Float, { nullable: true, description: describeStatistic('timeInAnyHighPercent', true) })
  timeInAnyHighPercent!: number | null;

  static from(row: TideRow, units: GlucoseUnits): TideEntry {
    const mean = row.stats.averageGlucoseMmol;
    return Object.assign(new TideEntry(), {
      ...row.stats,
      units,
      averageGlucose: mean === null ? null : fromMmol(mean, units),
      timeCGMUseMinutes: row.stats.timeCGMUseMinutes === null ? null : Math.round(row.stats.timeCGMUseMinutes),
      patient: ClinicPatient.from(row.patient),
      dataSources: row.dataSources,
      lastData: row.lastData,
    });
  }
}

@ObjectType({ description: 'The patients of one TIDE category, in the category’s order (ties by name, then id).' })
export class TideCategoryResult {
  @Field(() => TideCategoryValue, { description: 'The category.' })
  category!: TideCategoryValue;

  @Field(() => [TideEntry], { description: 'Its patients; empty when none met it.' })
  entries!: TideEntry[];
}

@ObjectType({
  description:
    'The TIDE report of a clinic: its patients carrying all the tags asked, sorted into categories by how urgently their CGM data needs a look. At most 100 patients over all categories together (earlier categories first), plus up to 50 whose data stopped arriving.',
})
export class TideReport {
  @Field(() => TideConfig, { description: 'What was asked and the constants applied.' })
  config!: TideConfig;

  @Field(() => [TideCategoryResult], {
    description:
      'The categories in priority order. Once 100 patients are taken, later categories are left out entirely (an empty one before that is listed, empty).',
  })
  categories!: TideCategoryResult[];

  @Field(() => [TideEntry], {
    nullable: true,
    description:
      'Up to 50 patients without recent CGM data: never any, or none in the last 8 hours and either none since `lastDataCutoff` or a Dexcom link that is not connected. Oldest data first, none first of all. Independent of the 100 (a patient may also be in a category). Null when `excludeNoData` was true.',
  })
  noData!: TideEntry[] | null;

  /** The report, its glucose values also in `units`. */
  static from(report: TideReportData, units: GlucoseUnits): TideReport {
    const { parameters } = report;
    const entry = (row: TideRow) => TideEntry.from(row, units);
    return Object.assign(new TideReport(), {
      config: Object.assign(new TideConfig(), {
        schemaVersion: TIDE_SCHEMA_VERSION,
        clinicId: report.clinicId,
        period: parameters.period as SummaryPeriodValue,
        lastDataCutoff: parameters.lastDataCutoff,
        tagIds: parameters.tags,
        categories: parameters.categories.map((key: TideCategoryKey) => key as TideCategoryValue),
        thresholds: Object.assign(new TideThresholds(), {
          veryLowGlucoseMmol: TIDE_THRESHOLDS.veryLowGlucoseThreshold,
          lowGlucoseMmol: TIDE_THRESHOLDS.lowGlucoseThreshold,
          highGlucoseMmol: TIDE_THRESHOLDS.highGlucoseThreshold,
          veryHighGlucoseMmol: TIDE_THRESHOLDS.veryHighGlucoseThreshold,
          extremeHighGlucoseMmol: TIDE_THRESHOLDS.extremeHighGlucoseThreshold,
          units,
          veryLowGlucose: fromMmol(TIDE_THRESHOLDS.veryLowGlucoseThreshold, units),
          lowGlucose: fromMmol(TIDE_THRESHOLDS.lowGlucoseThreshold, units),
          highGlucose: fromMmol(TIDE_THRESHOLDS.highGlucoseThreshold, units),
          veryHighGlucose: fromMmol(TIDE_THRESHOLDS.veryHighGlucoseThreshold, units),
          extremeHighGlucose: fromMmol(TIDE_THRESHOLDS.extremeHighGlucoseThreshold, units),
        }),
        filters: Object.entries(TIDE_CONFIG_FILTERS).map(([name, expression]) =>
          Object.assign(new TideFilter(), { name, expression }),
        ),
      }),
      categories: report.categories.map(({ category, rows }) =>
        Object.assign(new TideCategoryResult(), {
          category: category as TideCategoryValue,
          entries: rows.map(entry),
        }),
      ),
      noData: report.noData && report.noData.map(entry),
    });
  }
}

@InputType({ description: 'A cloud data source of a patient, as the data-source service reports it.' })
export class PatientDataSourceInput {
  @Field(() => ID, { nullable: true, description: 'The data source id: 24 lowercase hexadecimal characters.' })
  dataSourceId?: string | null;

  @Field({ description: 'The provider, e.g. `dexcom`: 1 to 100 characters.' })
  providerName!: string;

  @Field(() => DataSourceStateValue, { description: 'Whether it imports.' })
  state!: DataSourceStateValue;

  @Field(() => Date, { nullable: true, description: 'When its state last changed.' })
  modifiedTime?: Date | null;

  @Field(() => Date, { nullable: true, description: 'When its authorization expires.' })
  expirationTime?: Date | null;

  @Field(() => Date, { nullable: true, description: 'Time of the newest data it imported.' })
  latestDataTime?: Date | null;
}

@InputType({ description: 'A user’s data sources, replacing those on its record in every clinic.' })
export class UpdatePatientDataSourcesInput {
  @Field(() => ID, { description: 'The patient’s account id.' })
  userId!: string;

  @Field(() => [PatientDataSourceInput], { description: 'All its data sources (at most 20); empty when none.' })
  dataSources!: PatientDataSourceInput[];
}

@ObjectType({ description: 'The result of `updatePatientDataSources`.' })
export class UpdatePatientDataSourcesPayload {
  @Field(() => ID, { description: 'The patient’s account id.' })
  userId!: string;

  @Field(() => [PatientDataSource], { description: 'Its data sources as stored.' })
  dataSources!: PatientDataSource[];
}
