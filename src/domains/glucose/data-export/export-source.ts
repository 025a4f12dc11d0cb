import type { Scope } from '../../../kernel/scope';
import type { DatasetRecord } from '../dataset.entity';
import { datasetLoader, readingBatches, type ReadingFilter } from '../glucose.loaders';
import type { ZoneFallbacks } from '../local-time.service';
import { exportedReading, exportedUpload, type ExportedReading, type ExportUnits } from './export-rows';

export type ReadingType = 'cbg' | 'smbg';

/**
 * What one export reads, as the writers ask for it: readings of some types in (time, id) order,
 * 1,000 at a time by keyset, then the datasets (uploads) those readings came from. Only the
 * current batch and the datasets met so far are held, so memory stays flat for any history.
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

  /** The readings of `types`, batch by batch, each with its local time and value in the export's units. */
  async *readings(types: readonly ReadingType[]): AsyncGenerator<ExportedReading[]> {
    for await (const batch of readingBatches(this.scope.em, this.userId, { types, ...this.range })) {
      // One query per batch at most (the request's dataset loader), none once its datasets are known.
      const ids = [...new Set(batch.map((reading) => reading.datasetId))].filter((id) => !this.datasets.has(id));
      for (const dataset of await datasetLoader(this.scope).loadMany(ids))
        if (dataset) this.datasets.set(dataset.id, dataset);
      yield batch.map((reading) =>
        exportedReading(reading, this.units, this.datasets.get(reading.datasetId)?.details.timezone, this.fallbacks),
      );
    }
  }

  /** The datasets the readings read so far came from, oldest first, as Tidepool's upload data. */
  uploads(): Record<string, unknown>[] {
    return [...this.datasets.values()]
      .sort((a, b) => a.createdTime.getTime() - b.createdTime.getTime() || a.id.localeCompare(b.id))
      .map(exportedUpload);
  }
}
