import type { Readable } from 'node:stream';
import { invalid } from '../../../kernel/errors';
import type { ExportsInFlight } from '../../../kernel/exports-in-flight';
import type { Scope } from '../../../kernel/scope';
import { assertUserId } from '../../../kernel/validation';
import { MAY_READ_DATA, type AccessPolicy } from '../../permissions/access-policy';
import { assertTimeZone, type LocalTimeService } from '../local-time.service';
import type { ExportUnits } from './export-rows';
import { ExportSource } from './export-source';
import { EXPORT_FORMATS, WRITERS, type ExportFormat } from './writers';

/** What a caller asks to export (Tidepool's export service's parameters, plus the local-time fallbacks). */
export interface ExportRequest {
  userId: string;
  format: ExportFormat;
  units: ExportUnits;
  /** Inclusive; null for the whole history. */
  from: Date | null;
  /** Inclusive; null for the whole history. */
  to: Date | null;
  timeZone: string | null;
  clinicId: string | null;
}

/** An export ready to stream: its bytes, media type and the name to save it under. */
export interface ExportFile {
  stream: Readable;
  mediaType: string;
  fileName: string;
}

/**
 * A patient's data to take away, as Tidepool's export service gives it: the cbg and smbg records
 * with their local time, and the uploads (datasets, with their devices) they came in, as JSON,
 * CSV or an Excel workbook. Who may read the data (MAY_READ_DATA, as `GET /data/{userId}`)
 * may export it; the decision is on the access log. A caller has a bounded number of exports
 * streaming at once (ExportsInFlight): one more is refused before anything is read.
 */
export class DataExportService {
  constructor(
    private readonly access: AccessPolicy,
    private readonly localTime: LocalTimeService,
    private readonly inFlight: ExportsInFlight,
  ) {}

  /** Checks the request and the caller, then opens the stream; nothing is read before a byte is wanted. */
  async open(scope: Scope, request: ExportRequest): Promise<ExportFile> {
    assertUserId(request.userId);
    if (request.from && request.to && request.from > request.to)
      throw invalid('startDate must not be later than endDate', 'startDate');
    if (request.timeZone !== null) assertTimeZone(request.timeZone);
    await this.access.assertAllowed(scope, request.userId, MAY_READ_DATA);
    const fallbacks = await this.localTime.fallbacks(scope, request);
    const range = { from: request.from, to: request.to };
    const source = new ExportSource(scope, request.userId, range, request.units, fallbacks);
    const { mediaType, extension } = EXPORT_FORMATS[request.format];
    return {
      stream: await this.inFlight.open(scope.principal, () => WRITERS[request.format](source)),
      mediaType,
      fileName: `islet-${request.userId}-${new Date().toISOString().slice(0, 10)}.${extension}`,
    };
  }
}
