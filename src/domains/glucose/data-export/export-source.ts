import { staleReadsOf } from '../../../infra/database/sql-runner';
import type { Scope } from '../../../kernel/scope';
import { placeholders } from '../../../kernel/sql';
import type { DatasetRecord } from '../dataset.entity';
import { datasetLoader, type ReadingFilter } from '../glucose.loaders';
import {
  batchEnd,
  OF_USERS,
  ofUsers,
  READING_COLUMNS,
  READINGS_WITH_SHAPES,
  SHAPE_OF_TYPES,
} from '../readings.repository';
import type { ZoneFallbacks } from '../local-time.service';
import { exportedReading, exportedUpload, type ExportedReading, type ExportRow, type ExportUnits } from './export-rows';

export type ReadingType = 'cbg' | 'smbg';

const BATCH = 1000;
/**
 * Readings handed to a writer at once: each part's text (~40 KB of JSON) stays small enough for
 * the young generation, where it dies once written; a whole batch's would be a large object that
 * only a full collection frees, and the service's young generation is small (8 MiB semi-spaces,
 * `npm start`).
 */
const PART = 100;

/**
 * Only the columns an export writes, named as ExportRow, its times as epoch milliseconds: the
 * driver then parses a number, not a timestamp into a Date, for each of a year's 100,000 readings.
 * Times are stored from JavaScript dates (whole milliseconds); floor keeps any finer one as a Date
 * would. ORDER BY names the table's columns, not these aliases (which it would sort every row by).
 */
const COLUMNS = `id, type, floor(extract(epoch from time) * 1000)::float8 as "time", value, dataset_id as "datasetId",
  device_id as "deviceId", fields, floor(extract(epoch from created_time) * 1000)::float8 as "createdTime", key`;

/**
 * What one export reads, as the writers ask for it: readings of some types in (time, id) order,
 * 1,000 at a time by keyset (no connection is held while a slow client reads), then the datasets
 * (uploads) those readings came from. Only the current batch and the datasets met so far are
 * held, so memory stays flat for any history.
 */
export class ExportSource {
  /** The datasets of the readings exported so far, by id. */
  private readonly datasets = new Map<string, DatasetRecord>();

  constructor(
    private readonly scope: Scope,
    private readonly userId: string,
    private readonly range: Pick<ReadingFilter, 'from' | 'to'>,
    readonly units: ExportUnits,
    private readonly fallbacks: ZoneFallbacks,
  ) {}

  /** The readings of `types`, part by part, each with its local time and value in the export's units. */
  async *readings(types: readonly ReadingType[]): AsyncGenerator<ExportedReading[]> {
    for await (const batch of this.rows(types)) {
      // One query per batch at most (the request's dataset loader), none once its datasets are known.
      const ids = [...new Set(batch.map((row) => row.datasetId))].filter((id) => !this.datasets.has(id));
      if (ids.length)
        for (const dataset of await datasetLoader(this.scope).loadMany(ids))
          if (dataset) this.datasets.set(dataset.id, dataset);
      for (let start = 0; start < batch.length; start += PART)
        yield batch
          .slice(start, start + PART)
          .map((row) =>
            exportedReading(row, this.units, this.datasets.get(row.datasetId)?.details.timezone, this.fallbacks),
          );
    }
  }

  /** The datasets the readings read so far came from, oldest first, as Tidepool's upload data. */
  uploads(): Record<string, unknown>[] {
    return [...this.datasets.values()]
      .sort((a, b) => a.createdTime.getTime() - b.createdTime.getTime() || a.id.localeCompare(b.id))
      .map(exportedUpload);
  }

  /** The active readings of `types` in the range, in (time, id) order, a batch per statement (`batchEnd`). */
  private async *rows(types: readonly ReadingType[]): AsyncGenerator<ExportRow[]> {
    const { from, to } = this.range;
    const bounds = [from && 'and time >= ?', to && 'and time <= ?'].filter(Boolean).join(' ');
    const condition = `active and ${SHAPE_OF_TYPES('?', placeholders(types.length))} ${bounds}`;
    const params = [this.userId, ...types, ...[from, to].filter((bound) => bound !== null)];
    // An export tolerates a little staleness: its batches may read one replica (staleReadsOf keeps it).
    const sql = staleReadsOf(this.scope.em);
    let after: Date | null = null;
    for (;;) {
      const of = [...ofUsers([this.userId]), ...params, ...(after ? [after] : [])];
      const rows: (ExportRow & { key: string })[] = await sql.rows<ExportRow & { key: string }>(
        `select ${COLUMNS} from (select ${READING_COLUMNS} from ${READINGS_WITH_SHAPES}
          where ${OF_USERS(1, 'r.user_id')} and ${condition} ${after ? 'and r.time > ?' : ''}
            and r.time <= ${batchEnd(condition, after !== null)}) r
          order by r.time, r.key`,
        [...of, ...of],
      );
      if (rows.length) yield rows;
      if (rows.length < BATCH) return;
      after = new Date(rows.at(-1)!.time);
    }
  }
}
