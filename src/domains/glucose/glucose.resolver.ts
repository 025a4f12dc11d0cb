import { Arg, Args, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { OffsetPageArgs, PageArgs } from '../../graphql/connection';
import type { Scope } from '../../kernel/scope';
import { incomingContent } from '../../kernel/upload';
import { User } from '../users/user.types';
import { GlucoseService } from './glucose.service';
import {
  AddDatasetDataInput,
  AddDatasetDataPayload,
  CloseDatasetPayload,
  CreateDatasetInput,
  CreateDatasetPayload,
  Dataset,
  DatasetConnection,
  DatasetInput,
  DataSource,
  DeleteDatasetPayload,
  GlucoseReading,
  GlucoseReadingConnection,
  GlucoseReadingFilter,
  GlucoseTypeValue,
  RebuildGlucoseSummariesInput,
  RebuildGlucoseSummariesPayload,
} from './glucose.types';
import { GlucoseSummary, PERIOD_ARG, SummaryPeriodValue } from './glucose-summary.types';
import { BgUnitsValue, UNITS_ARG } from './glucose-units.types';
import { LocalTimeService } from './local-time.service';
import { CLINIC_ZONE_ARG, TIME_ZONE_ARG } from './local-time.types';
import { DEFAULT_GLUCOSE_UNITS } from './summary/units';

@Resolver(() => Dataset)
export class DatasetsResolver {
  constructor(private readonly glucose: GlucoseService) {}

  @Query(() => Dataset, {
    nullable: true,
    description:
      'An upload session by id: readable by whoever may read its owner’s data; otherwise null with FORBIDDEN, or NOT_FOUND.',
  })
  async dataset(
    @Arg('id', () => ID, { description: 'The dataset id: 32 lowercase hexadecimal characters.' }) id: string,
    @Ctx() scope: Scope,
  ): Promise<Dataset> {
    return Dataset.from(await this.glucose.dataset(scope, id));
  }

  @Query(() => DatasetConnection, {
    description:
      'The upload sessions of a user, newest first. Whoever may read the user’s data may list them; others get FORBIDDEN.',
  })
  async datasets(
    @Arg('userId', () => ID, { description: 'The owner.' }) userId: string,
    @Args() paging: OffsetPageArgs,
    @Ctx() scope: Scope,
  ): Promise<DatasetConnection> {
    return DatasetConnection.of(await this.glucose.datasets(scope, userId, paging), Dataset.from);
  }

  @Query(() => [DataSource], {
    description:
      'The cloud data sources of a user, as the data-source service reported them to its clinics (see updatePatientDataSources): the user, its custodians and server tokens; others get FORBIDDEN.',
  })
  async dataSources(
    @Arg('userId', () => ID, { description: 'The account.' }) userId: string,
    @Ctx() scope: Scope,
  ): Promise<DataSource[]> {
    return this.glucose.dataSources(scope, userId);
  }

  @Mutation(() => CreateDatasetPayload, { description: 'Opens an upload session for glucose records.' })
  async createDataset(
    @Arg('input', () => CreateDatasetInput, { description: 'The owner and what the uploader says about the upload.' })
    input: CreateDatasetInput,
    @Ctx() scope: Scope,
  ): Promise<CreateDatasetPayload> {
    const dataset = await this.glucose.createDataset(scope, input.userId, CreateDatasetInput.tidepoolFields(input));
    return Object.assign(new CreateDatasetPayload(), { dataset: Dataset.from(dataset) });
  }

  @Mutation(() => AddDatasetDataPayload, {
    description:
      'Adds records to an open dataset: all of them, or none when one is invalid (the error names its index and field).',
  })
  async addDatasetData(
    @Arg('input', () => AddDatasetDataInput, { description: 'The dataset and its records.' })
    input: AddDatasetDataInput,
    @Ctx() scope: Scope,
  ): Promise<AddDatasetDataPayload> {
    const stored = await this.glucose.addData(scope, input.datasetId, await incomingContent(input.records));
    const dataset = Dataset.from(await this.glucose.dataset(scope, input.datasetId));
    return Object.assign(new AddDatasetDataPayload(), { dataset, stored });
  }

  @Mutation(() => CloseDatasetPayload, {
    description: 'Closes a NORMAL dataset: its records count from now on. Only servers close CONTINUOUS ones.',
  })
  async closeDataset(
    @Arg('input', () => DatasetInput, { description: 'The dataset.' }) input: DatasetInput,
    @Ctx() scope: Scope,
  ): Promise<CloseDatasetPayload> {
    return Object.assign(new CloseDatasetPayload(), {
      dataset: Dataset.from(await this.glucose.closeDataset(scope, input.id)),
    });
  }

  @Mutation(() => DeleteDatasetPayload, {
    description: 'Deletes a dataset and its records: the owner, a custodian, a server, or the uploader who opened it.',
  })
  async deleteDataset(
    @Arg('input', () => DatasetInput, { description: 'The dataset.' }) input: DatasetInput,
    @Ctx() scope: Scope,
  ): Promise<DeleteDatasetPayload> {
    await this.glucose.deleteDataset(scope, input.id);
    return Object.assign(new DeleteDatasetPayload(), { deletedDatasetId: input.id });
  }
}

/** Repairs: summaries rebuilt from every reading, which gives the numbers the incremental updates keep. */
@Resolver()
export class GlucoseSummaryRepairResolver {
  constructor(private readonly glucose: GlucoseService) {}

  @Mutation(() => RebuildGlucoseSummariesPayload, {
    description: 'Rebuilds an account’s glucose summaries from all its readings (repairs). Server tokens only.',
  })
  async rebuildGlucoseSummaries(
    @Arg('input', () => RebuildGlucoseSummariesInput, { description: 'The account.' })
    input: RebuildGlucoseSummariesInput,
    @Ctx() scope: Scope,
  ): Promise<RebuildGlucoseSummariesPayload> {
    await this.glucose.rebuildSummaries(scope, input.userId);
    return Object.assign(new RebuildGlucoseSummariesPayload(), { userId: input.userId });
  }
}

/** Glucose data as seen from an account. */
@Resolver(() => User)
export class UserGlucoseResolver {
  constructor(
    private readonly glucose: GlucoseService,
    private readonly localTime: LocalTimeService,
  ) {}

  @FieldResolver(() => DatasetConnection, {
    description: 'The upload sessions of this account, newest first; empty for callers who may not read its data.',
  })
  async datasets(@Root() user: User, @Args() paging: OffsetPageArgs, @Ctx() scope: Scope): Promise<DatasetConnection> {
    return DatasetConnection.of(await this.glucose.datasetsOf(scope, user.userId, paging), Dataset.from);
  }

  @FieldResolver(() => GlucoseReadingConnection, {
    description:
      'The glucose readings of this account in a time range, oldest first (only those that count: closed or continuous uploads); empty for callers who may not read its data.',
  })
  async glucoseReadings(
    @Root() user: User,
    @Arg('filter', () => GlucoseReadingFilter, { description: 'The time range, and optionally one kind of reading.' })
    filter: GlucoseReadingFilter,
    @Args() paging: PageArgs,
    @Arg('units', () => BgUnitsValue, UNITS_ARG) units: BgUnitsValue | null,
    @Arg('timeZone', () => String, TIME_ZONE_ARG) timeZone: string | null,
    @Arg('clinicId', () => ID, CLINIC_ZONE_ARG) clinicId: string | null,
    @Ctx() scope: Scope,
  ): Promise<GlucoseReadingConnection> {
    const types = filter.type ? [filter.type] : [GlucoseTypeValue.CBG, GlucoseTypeValue.SMBG];
    const zones = await this.localTime.fallbacks(scope, { timeZone, clinicId });
    const list = await this.glucose.readingsOf(scope, user.userId, { types, from: filter.from, to: filter.to }, paging);
    return GlucoseReadingConnection.of(list, (reading) =>
      GlucoseReading.from(reading, units ?? DEFAULT_GLUCOSE_UNITS, zones),
    );
  }

  @FieldResolver(() => GlucoseSummary, {
    nullable: true,
    description:
      'Glucose statistics of this account for one period (Tidepool’s summaries, updated within seconds of an upload); null for callers who may not read its data.',
  })
  async glucoseSummary(
    @Root() user: User,
    @Arg('period', () => SummaryPeriodValue, PERIOD_ARG)
    period: SummaryPeriodValue,
    @Arg('units', () => BgUnitsValue, UNITS_ARG) units: BgUnitsValue | null,
    @Ctx() scope: Scope,
  ): Promise<GlucoseSummary | null> {
    const summaries = await this.glucose.summariesOf(scope, user.userId, period);
    return summaries && GlucoseSummary.from(summaries, units ?? DEFAULT_GLUCOSE_UNITS);
  }
}
