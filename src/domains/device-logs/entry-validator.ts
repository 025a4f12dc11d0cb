import { Transform, type TransformCallback } from 'node:stream';
import { parser } from 'stream-json';
import { streamArray } from 'stream-json/streamers/StreamArray';
import { invalid } from '../../kernel/errors';
import { DATE_TIME_RANGE, isStorableDateTime } from '../../kernel/validation';

export const ENTRY_TYPES = ['send', 'receive', 'error', 'delegate', 'delegateResponse', 'connection'] as const;
/**
 * The largest one entry may be. Entries are assembled whole before they are checked, so this is
 * also what validating a log can hold in memory, whatever its size (real entries are < 1 KiB).
 */
export const ENTRY_SIZE_LIMIT = 1024 * 1024;
const TEXT_FIELDS = ['managerIdentifier', 'deviceIdentifier', 'message'] as const;

/** Checks one entry against spec §2.5; the error names the index and the field. */
export function assertEntry(entry: unknown, index: number): void {
  const at = (field: string) => `[${index}].${field}`;
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry))
    throw invalid(`Device log entry ${index} must be a JSON object`, `[${index}]`);
  const fields = entry as Record<string, unknown>;
  if (!ENTRY_TYPES.includes(fields.type as (typeof ENTRY_TYPES)[number]))
    throw invalid(`Device log entry ${index}: type must be one of ${ENTRY_TYPES.join(', ')}`, at('type'));
  for (const field of TEXT_FIELDS) {
    const value = fields[field];
    if (typeof value !== 'string' || value.length === 0)
      throw invalid(`Device log entry ${index}: ${field} must be a non-empty string`, at(field));
  }
  const timestamp = fields.timestamp;
  if (typeof timestamp !== 'string' || !isStorableDateTime(timestamp))
    throw invalid(
      `Device log entry ${index}: timestamp must be an ISO 8601 date-time such as 2024-01-02T03:04:05Z, ${DATE_TIME_RANGE.description}`,
      at('timestamp'),
    );
}

/**
 * Passes the bytes through unchanged while parsing them as a JSON array of device log entries,
 * one entry at a time, so a 100 MiB log is validated in constant memory. The stream fails with
 * a 400 naming the entry and field as soon as one is wrong, and does not end until every entry
 * has been checked, so invalid content never becomes a stored log.
 */
export class EntryValidator extends Transform {
  // Whole values only: entries are checked once complete, so their pieces need no events.
  private readonly input = parser({ streamValues: false });
  private readonly entries = this.input.pipe(streamArray());
  private failure: Error | undefined;
  private received = 0;
  /** Entries checked so far, and bytes fed to the parser since the last one was complete. */
  private entriesSeen = 0;
  private bytesSinceEntry = 0;
  private ended = false;
  private onEnded: (() => void) | undefined;

  constructor() {
    super();
    this.entries.on('data', ({ key, value }: { key: number; value: unknown }) => {
      this.entriesSeen = key + 1;
      this.bytesSinceEntry = 0;
      try {
        assertEntry(value, key);
      } catch (error) {
        this.fail(error as Error);
      }
    });
    const malformed = (error: Error) =>
      this.fail(invalid(`The device log is not a JSON array of entries: ${error.message}`, 'body'));
    this.input.on('error', malformed);
    this.entries.on('error', malformed);
    this.entries.on('end', () => {
      this.ended = true;
      this.settle();
    });
  }

  private fail(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    this.destroy(error);
    this.settle();
  }

  /** Ends a pending flush exactly once, with the failure if there was one. */
  private settle(): void {
    const onEnded = this.onEnded;
    this.onEnded = undefined;
    onEnded?.();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (this.failure) return callback(this.failure);
    this.received += chunk.length;
    this.bytesSinceEntry += chunk.length;
    this.input.write(chunk, () => {
      // A chunk may end a large entry and start the next one: allow one chunk beyond the limit.
      if (this.bytesSinceEntry > ENTRY_SIZE_LIMIT + chunk.length) {
        const limit = `${ENTRY_SIZE_LIMIT / 1024 / 1024} MiB`;
        this.fail(invalid(`Device log entry ${this.entriesSeen} is larger than ${limit}`, `[${this.entriesSeen}]`));
      }
      callback(this.failure ?? null, chunk);
    });
  }

  override _flush(callback: TransformCallback): void {
    if (this.received === 0) this.fail(invalid('The device log is empty; send a JSON array of entries', 'body'));
    if (this.failure) return callback(this.failure);
    this.onEnded = () => callback(this.failure ?? null);
    this.input.end();
    if (this.ended) this.settle();
  }
}
