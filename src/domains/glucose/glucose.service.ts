import type { EntityManager } from '@mikro-orm/postgresql';
import type { OwnerAccounts } from '../../kernel/accounts';
import type { IncomingContent } from '../../kernel/content';
import { conflict, forbidden, invalid, notFound, unauthenticated } from '../../kernel/errors';
import { isAuthenticated } from '../../kernel/principal';
import { HEX_ID32_PATTERN, hexId, hexIds, ID32_PATTERN } from '../../kernel/ids';
import type { CountedObjects } from '../../kernel/quota';
import type { Scope } from '../../kernel/scope';
import { assertUserId } from '../../kernel/validation';
import { MAY_READ_DATA, type AccessPolicy, type Requirement } from '../permissions/access-policy';
import { DatasetSchema, type DatasetRecord } from './dataset.entity';
import { DEDUPLICATORS, parseDatasetFields } from './dataset-fields';
import { keptRecords } from './deduplication';
import {
  datasetCounts,
  datasetLoader,
  datasetPages,
  readingCounts,
  readingPages,
  summaryLoader,
  previousPeriodsLoader,
  clinicCopyLoader,
} from './glucose.loaders';
import { clinicCopyText, type ClinicCopy } from './clinic-copy';
import { deleteDataset, deleteDatasetsOf, lockDataset, shareLockedState } from './datasets.repository';
import {
  activateDatasetReadings,
  deactivateEarlierCopies,
  deleteDatasetReadings,
  deleteReadingsOf,
  earliestOfDataset,
  lockReadingsOf,
  readingBatches,
  type ReadingFilter,
  type StoredReading,
} from './readings.repository';
import { dropCopies, insertReadings, storeShapes } from './reading-upload.repository';
import { shapeReadings } from './reading-shape';
import { deleteSummaries, markOutdated, type StoredClinicCopy, type StoredSummary } from './summaries.repository';
import type { SummaryKind } from './summary/buckets';
import { exportPeriod, type ExportedPeriod } from './summary/export';
import { PERIODS, type PeriodKey } from './summary/periods';
import { isTimeAndIdKey, pageArgs, pageOf, type PageArgs, type PagedList } from '../../kernel/paging';
import { readRecords } from './record-body';
import { KIND_OF, updateSummary } from './summary-store';
import { announceSummaryChange } from './summary-feed';
import { assertReadingDensityUnderLock } from './reading-density';
import { glucoseReadingsIngested } from '../../infra/metrics';

/** A cloud data source of an account: its id, provider (e.g. `dexcom`) and state (e.g. `connected`). */
export interface LinkedDataSource {
  id: string;
  providerName: string;
  state: string;
}

/** docs/decisions.md, access rules: uploaders, custodians (and clinics holding either) write; `view` or custodian reads. */
const MAY_UPLOAD: Requirement = ['upload', 'custodian'];
const MAY_READ: Requirement = MAY_READ_DATA;
const DATASET_ID = HEX_ID32_PATTERN;

export function assertDatasetId(id: string, field = 'datasetId'): string {
  if (!DATASET_ID.test(id)) throw invalid(`${field} must be 32 lowercase hexadecimal characters`, field);
  return id;
}

/**
 * Glucose data as Tidepool's uploaders send it: upload sessions (datasets) of `cbg` and `smbg`
 * records, deduplicated as each dataset says, active once the session closes (normal) or at
 * once (continuous).
 */
export class GlucoseService {
  constructor(
    private readonly access: AccessPolicy,
    private readonly accounts: OwnerAccounts,
    private readonly summaries: { nudge(): void },
    /** Readings an account may keep per hour of data (GLUCOSE_READINGS_PER_HOUR; reading-density.ts). */
    private readonly readingsPerHour: number,
    /** The user's cloud data sources as the clinics domain keeps them (none when not wired). */
    private readonly linkedSources: (scope: Scope, userId: string) => Promise<LinkedDataSource[]> = async () => [],
  ) {}

  async createDataset(scope: Scope, userId: string, body: unknown): Promise<DatasetRecord> {
    assertUserId(userId);
    await this.access.assertAllowed(scope, userId, MAY_UPLOAD);
    const fields = parseDatasetFields(body);
    await this.accounts.assertExists(scope, userId);
    return scope.em.transactional(async (tx) => {
      await this.accounts.assertHeld(tx, userId);
      await this.accounts.holdRoom(tx, userId, DATASETS);
      const dataset: DatasetRecord = {
        id: hexId(32),
        userId,
        dataSetType: fields.dataSetType,
        state: 'open',
        deduplicator: fields.deduplicator,
        deviceId: (fields.details.deviceId as string | undefined) ?? null,
        details: fields.details,
        createdUserId: scope.principal.userId,
        createdTime: new Date(),
        modifiedTime: null,
      };
      tx.create(DatasetSchema, dataset);
      return dataset;
    });
  }

  /** A dataset its owner's readers may see; FORBIDDEN for others, NOT_FOUND when there is none. */
  async dataset(scope: Scope, id: string): Promise<DatasetRecord> {
    const dataset = await this.existing(scope, id);
    await this.access.assertAllowed(scope, { userId: dataset.userId, objectIds: [dataset.id] }, MAY_READ);
    return dataset;
  }

  /**
   * Adds records to an open dataset: all of them or, when one is invalid, none. Returns how
   * many were stored after deduplication.
   */
  async addData(scope: Scope, datasetId: string, content: IncomingContent): Promise<number> {
    const dataset = await this.existing(scope, datasetId);
    await this.access.assertAllowed(scope, { userId: dataset.userId, objectIds: [dataset.id] }, MAY_UPLOAD);
    if (dataset.state === 'closed') throw closed();
    const mode = DEDUPLICATORS[dataset.deduplicator as keyof typeof DEDUPLICATORS];
    const identity = { datasetId, deviceId: dataset.deviceId ?? null };
    const { records, originKeys } = keptRecords(await readRecords(content), identity, mode);
    const active = dataset.dataSetType === 'continuous';
    const { shapes, readings } = shapeReadings(records, hexIds(records.length, 32), originKeys, datasetId);
    // Stored before the transaction, on their own (storeShapes says why).
    const shapeIds = records.length ? await storeShapes(scope.em, dataset, shapes, records) : [];
    if (shapeIds.length < shapes.length) throw datasetNotFound(datasetId);
    const stored = await scope.em.transactional(async (tx) => {
      // The dataset row is held so a close cannot pass between the check and the insert; shared,
      // so that other uploads to it need not wait.
      const state = await shareLockedState(tx, datasetId);
      if (!state) throw datasetNotFound(datasetId);
      if (state === 'closed') throw closed();
      let count = await insertReadings(tx, dataset, records, readings, shapeIds, { active, mode });
      if (!count) return 0;
      // One lock per account for both checks: uploads at once drop each other's copies and count
      // each other's readings in turn.
      await lockReadingsOf(tx, dataset.userId);
      count -= await dropCopies(tx, dataset, mode, records);
      const times = records.map((record) => record.time);
      if (count) await assertReadingDensityUnderLock(tx, dataset.userId, times, this.readingsPerHour);
      // Continuous records count at once; an origin replacement may move a reading back in time.
      if (active && count) await this.outdateFromDataset(tx, dataset.userId, datasetId);
      return count;
    });
    glucoseReadingsIngested.inc(stored);
    if (active && stored) this.summaries.nudge();
    return stored;
  }

  /**
   * Closes a normal dataset: its records become active and, under the device deduplicator, the
   * same readings uploaded earlier from that device stop counting. Only servers close
   * continuous datasets, as in Tidepool.
   */
  async closeDataset(scope: Scope, datasetId: string): Promise<DatasetRecord> {
    const dataset = await this.existing(scope, datasetId);
    await this.access.assertAllowed(scope, { userId: dataset.userId, objectIds: [dataset.id] }, MAY_UPLOAD);
    if (dataset.dataSetType === 'continuous' && !scope.principal.isServer)
      throw forbidden('Only a server closes a continuous dataset');
    const result = await scope.em.transactional(async (tx) => {
      const current = await this.locked(tx, datasetId);
      if (current.state === 'closed') throw closed();
      await activateDatasetReadings(tx, dataset.userId, datasetId);
      if (dataset.deduplicator === 'org.tidepool.deduplicator.device.deactivate.hash')
        await deactivateEarlierCopies(tx, dataset.userId, datasetId);
      current.state = 'closed';
      current.modifiedTime = new Date();
      await this.outdateFromDataset(tx, dataset.userId, datasetId);
      return { ...current };
    });
    this.summaries.nudge();
    return result;
  }

  /**
   * Deletes a dataset and its records: its owner, a custodian, a server, or the uploader who
   * opened it (Tidepool's rule).
   */
  async deleteDataset(scope: Scope, datasetId: string): Promise<void> {
    const dataset = await this.existing(scope, datasetId);
    const opener = scope.principal.userId !== null && scope.principal.userId === dataset.createdUserId;
    await this.access.assertAllowed(
      scope,
      { userId: dataset.userId, objectIds: [dataset.id] },
      opener ? MAY_UPLOAD : ['custodian'],
    );
    await scope.em.transactional(async (tx) => {
      const locked = await this.locked(tx, datasetId);
      if (locked.dataSetType === 'continuous' || locked.state === 'closed')
        await this.outdateFromDataset(tx, dataset.userId, datasetId);
      await deleteDatasetReadings(tx, dataset.userId, datasetId);
      await deleteDataset(tx, datasetId);
    });
    this.summaries.nudge();
  }

  /** The summaries of the kinds of records in a dataset are outdated from its earliest record on. */
  private async outdateFromDataset(tx: EntityManager, userId: string, datasetId: string): Promise<void> {
    for (const { type, earliest } of await earliestOfDataset(tx, userId, datasetId))
      await markOutdated(tx, userId, KIND_OF[type]!, earliest);
  }

  /** A user's datasets, newest first; FORBIDDEN to callers who may not read the user's data. */
  async datasets(scope: Scope, userId: string, paging: DatasetPaging): Promise<PagedList<DatasetRecord>> {
    assertUserId(userId);
    const args = pageArgs(datasetListOf(userId), paging.first, paging.after, isCreatedKey, paging.offset);
    await this.access.assertAllowed(scope, userId, MAY_READ);
    return this.datasetPage(scope, userId, args);
  }

  /** The same list seen from an account: empty for callers who may not read it. */
  async datasetsOf(scope: Scope, userId: string, paging: DatasetPaging): Promise<PagedList<DatasetRecord>> {
    const args = pageArgs(datasetListOf(userId), paging.first, paging.after, isCreatedKey, paging.offset);
    if (!(await this.access.isAllowed(scope, userId, MAY_READ))) return emptyList(datasetListOf(userId), args);
    return this.datasetPage(scope, userId, args);
  }

  /** A user's active readings in a time range, oldest first; empty for callers who may not read them. */
  async readingsOf(
    scope: Scope,
    userId: string,
    filter: ReadingFilter,
    paging: Paging,
  ): Promise<PagedList<StoredReading>> {
    if (!filter.from || !filter.to) throw invalid('A reading list needs a time range', 'filter');
    if (filter.from > filter.to) throw invalid('from must not be later than to', 'from');
    const list = `glucoseReadings:${userId}:${JSON.stringify(filter)}`;
    const args = pageArgs(list, paging.first, paging.after, isTimeKey);
    if (!(await this.access.isAllowed(scope, userId, MAY_READ))) return emptyList(list, args);
    const rows = await readingPages(scope, filter, args).load(userId);
    return {
      page: pageOf(list, args, rows, (reading) => [reading.time.toISOString(), reading.id]),
      count: () => readingCounts(scope, filter).load(userId),
    };
  }

  /**
   * A user's CGM and BGM summaries for one period, as clinics see them (statistics too little data
   * would make misleading are left out); null for callers who may not read the user's data.
   */
  async summariesOf(scope: Scope, userId: string, period: PeriodKey): Promise<PeriodSummary[] | null> {
    if (!(await this.access.isAllowed(scope, userId, MAY_READ))) return null;
    return this.periodSummaries(scope, userId, period);
  }

  /**
   * A clinic patient's summaries with one side (current or `previous`) of their clinic copy
   * (clinic-copy.ts), as the REST patient list answers them, on the same terms as
   * summariesOfClinicPatient: null when the patient grants the clinic nothing.
   */
  async clinicCopiesOfClinicPatient(
    scope: Scope,
    patient: { userId: string; permissions: readonly string[] },
    previous: boolean,
  ): Promise<ClinicCopy[] | null> {
    if (!patient.permissions.length) return null;
    return (await clinicCopyLoader(scope, previous).load(patient.userId))
      .filter((summary) => summary.lastData)
      .map(clinicCopyOf);
  }

  /**
   * A clinic patient's summaries, for a caller its clinic already let read the patient: the
   * patient's grant to the clinic decides, with no other query (a page of patients asks four
   * periods of each); null when the patient grants the clinic nothing.
   */
  async summariesOfClinicPatient(
    scope: Scope,
    patient: { userId: string; clinicId: string; permissions: readonly string[] },
    period: PeriodKey,
  ): Promise<PeriodSummary[] | null> {
    const { clinicId, permissions } = patient;
    return permissions.length ? this.periodSummaries(scope, patient.userId, period, { clinicId, permissions }) : null;
  }

  private async periodSummaries(
    scope: Scope,
    userId: string,
    period: PeriodKey,
    clinic: SummarySource['clinic'] = null,
  ): Promise<PeriodSummary[]> {
    const days = PERIODS[period];
    const source: SummarySource = { userId, period, clinic };
    return (await summaryLoader(scope).load(userId))
      .filter((summary) => summary.periods && summary.lastData)
      .map(({ kind, periods, ...dates }) => {
        let previous: Promise<ExportedPeriod> | undefined;
        return {
          kind,
          source,
          dates: { ...dates, lastData: dates.lastData! },
          period: exportPeriod(periods![period], days, kind),
          // Read and exported only when asked for: most views show the current period alone. (A
          // summary updated between the two reads shows its newer previous period.)
          get previous() {
            return (previous ??= previousPeriodsLoader(scope)
              .load(userId)
              .then((byKind) => exportPeriod(byKind[kind]![period], days, kind)));
          },
        };
      });
  }

  /**
   * The account's cloud data sources, as Tidepool's uploaders list them before an upload: those
   * the data-source service reported for it (kept on its clinic records), for the account, its
   * custodians and servers.
   */
  async dataSources(scope: Scope, userId: string): Promise<LinkedDataSource[]> {
    assertUserId(userId);
    await this.access.assertAllowed(scope, userId, ['custodian']);
    return this.linkedSources(scope, userId);
  }

  /** Rebuilds a user's summaries from all its records (repairs); server tokens only. */
  async rebuildSummaries(scope: Scope, userId: string): Promise<void> {
    assertUserId(userId);
    if (!scope.principal.isServer)
      throw isAuthenticated(scope.principal) ? forbidden('Only a server rebuilds summaries') : unauthenticated();
    for (const kind of ['cgm', 'bgm'] as const)
      await scope.em.transactional(async (tx) => {
        await updateSummary(tx, userId, kind, { full: true });
        await announceSummaryChange(tx, { userId, kind });
      });
  }

  private async datasetPage(scope: Scope, userId: string, args: PageArgs): Promise<PagedList<DatasetRecord>> {
    const rows = await datasetPages(scope, args).load(userId);
    return {
      page: pageOf(datasetListOf(userId), args, rows, (dataset) => [dataset.createdTime.toISOString(), dataset.id]),
      count: () => datasetCounts(scope).load(userId),
    };
  }

  /** A user's active readings in time order, in batches, for its readers: constant memory for any range. */
  async readings(scope: Scope, userId: string, filter: ReadingFilter): Promise<AsyncIterable<StoredReading[]>> {
    assertUserId(userId);
    await this.access.assertAllowed(scope, userId, MAY_READ);
    if (filter.from && filter.to && filter.from > filter.to)
      throw invalid('startDate must not be later than endDate', 'startDate');
    return readingBatches(scope.em, userId, filter);
  }

  /** Deleting an account deletes its glucose data, in the deletion's transaction. */
  async forgetUser(scope: Scope, userId: string): Promise<void> {
    await deleteReadingsOf(scope.em, userId);
    await deleteSummaries(scope.em, userId, null);
    await deleteDatasetsOf(scope.em, userId);
  }

  private async existing(scope: Scope, id: string): Promise<DatasetRecord> {
    assertDatasetId(id);
    const dataset = await datasetLoader(scope).load(id);
    if (!dataset) throw datasetNotFound(id);
    return dataset;
  }

  private async locked(tx: EntityManager, id: string): Promise<DatasetRecord> {
    const dataset = await lockDataset(tx, id);
    if (!dataset) throw datasetNotFound(id);
    return dataset;
  }
}

/** Whose summary was read, for which period, and inside which clinic (views derived from it, the AGP, read the same way). */
export interface SummarySource {
  userId: string;
  period: PeriodKey;
  /** Read as the clinic's patient: the clinic, and what the patient grants it. */
  clinic: { clinicId: string; permissions: readonly string[] } | null;
}

/** One kind of summary for one period: its dates, the period and the one before it. */
export interface PeriodSummary {
  kind: SummaryKind;
  source: SummarySource;
  dates: Omit<StoredSummary, 'kind' | 'periods'> & { lastData: Date };
  period: ExportedPeriod;
  previous: Promise<ExportedPeriod>;
}

export interface Paging {
  first?: number | null;
  after?: string | null;
}

/** A dataset list skips `offset` rows in SQL too (legacy offset paging). */
export interface DatasetPaging extends Paging {
  offset?: number | null;
}

const datasetListOf = (userId: string) => `datasets:${userId}`;

/** What DATASET_QUOTA counts: every dataset, open or closed. */
const DATASETS: CountedObjects = { kind: 'datasets', table: 'datasets', name: 'datasets' };
const isCreatedKey = isTimeAndIdKey(DATASET_ID);
const isTimeKey = isTimeAndIdKey(ID32_PATTERN);
const emptyList = <T>(list: string, args: PageArgs): PagedList<T> => ({
  page: pageOf<T>(list, args, [], () => []),
  count: async () => 0,
});

const closed = () => conflict('The dataset is closed: open a new one to upload more data');
const datasetNotFound = (id: string) => notFound(`Dataset ${id} was not found`);

/**
 * The ClinicCopy of each stored one, made once per stored copy: a kept copy (clinic-copy-cache.ts)
 * is answered as the same object for as long as it is kept, and so is its ClinicCopy, which lets
 * a transport keep what it makes of one beside it (rest-compat/patient-summary.ts).
 */
const clinicCopies = new WeakMap<StoredClinicCopy, ClinicCopy>();

function clinicCopyOf(stored: StoredClinicCopy): ClinicCopy {
  let copy = clinicCopies.get(stored);
  if (!copy) {
    const { kind, text, periods, ...dates } = stored;
    // A summary written before the copy was kept is copied from its periods.
    copy = { kind, dates: { ...dates, lastData: dates.lastData! }, periods: text ?? clinicCopyText(periods!, kind) };
    clinicCopies.set(stored, copy);
  }
  return copy;
}
