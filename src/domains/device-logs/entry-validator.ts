import { Transform, type TransformCallback } from 'node:stream';
import { invalid } from '../../kernel/errors';
import { JsonArrayError, JsonArraySplitter, JsonElementTooLargeError } from '../../kernel/json-array-splitter';
import { DATE_TIME_RANGE, isStorableDateTime } from '../../kernel/validation';

export const ENTRY_TYPES = ['send', 'receive', 'error', 'delegate', 'delegateResponse', 'connection'] as const;
/**
 * The largest one entry may be. Entries are held whole before they are checked, so this (and one
 * chunk) is also what validating a log can hold in memory, whatever its size (real entries are
 * < 1 KiB).
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
 * Passes the bytes through unchanged while reading them as a JSON array of device log entries,
 * one entry at a time, so a 100 MiB log is validated in constant memory. The stream fails with
 * a 400 naming the entry and field as soon as one is wrong, and does not end until every entry
 * has been checked, so invalid content never becomes a stored log.
 */
export class EntryValidator extends Transform {
  private readonly entries = new JsonArraySplitter(ENTRY_SIZE_LIMIT, assertEntry);
  private received = 0;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.received += chunk.length;
    try {
      this.entries.write(chunk);
    } catch (error) {
      return callback(malformed(error));
    }
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    if (this.received === 0) return callback(invalid('The device log is empty; send a JSON array of entries', 'body'));
    try {
      this.entries.end();
    } catch (error) {
      return callback(malformed(error));
    }
    callback();
  }
}

/** A splitter's error as the 400 it is; an entry's own error (already an AppError) as it is. */
function malformed(error: unknown): Error {
  if (error instanceof JsonElementTooLargeError) {
    const limit = `${ENTRY_SIZE_LIMIT / 1024 / 1024} MiB`;
    return invalid(`Device log entry ${error.index} is larger than ${limit}`, `[${error.index}]`);
  }
  if (error instanceof JsonArrayError)
    return invalid(`The device log is not a JSON array of entries: ${error.message}`, 'body');
  return error as Error;
}
