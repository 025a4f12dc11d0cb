import type { IncomingContent } from '../../kernel/content';
import { AppError, invalid } from '../../kernel/errors';
import { findNul, MAX_JSON_DEPTH, mayHoldNul, nestedDeeperThan, nulRefused, tooDeep } from '../../kernel/validation';
import { parseGlucoseRecord, type GlucoseRecord } from './glucose-record';

/** Tidepool advises at most 1,000 records per request; more is refused whole. */
export const MAX_RECORDS_PER_REQUEST = 1000;
/** Room for 1,000 verbose records (real ones are under 500 bytes), as Tidepool's 4 MB JSON limit. */
export const MAX_RECORDS_BODY_BYTES = 4 * 1024 * 1024;

const tooLarge = (what: string) => new AppError('TOO_LARGE', what);

/**
 * Reads an upload's body: a JSON array of at most 1,000 records in at most 4 MiB, every record
 * checked before any is stored (the error names the index and the field).
 */
export async function readRecords(content: IncomingContent): Promise<GlucoseRecord[]> {
  if (!/^application\/json\s*(;|$)/i.test(content.mediaType))
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', `Records are sent as application/json, not "${content.mediaType}"`);
  const bodyTooLarge = () =>
    tooLarge(
      `The body is larger than ${MAX_RECORDS_BODY_BYTES} bytes; send at most ${MAX_RECORDS_PER_REQUEST} records per request`,
    );
  if ((content.declaredSize ?? 0) > MAX_RECORDS_BODY_BYTES) throw bodyTooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of content.stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_RECORDS_BODY_BYTES) throw bodyTooLarge();
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalid('The body is not valid JSON: send a JSON array of cbg and smbg records', 'body');
  }
  if (!Array.isArray(parsed)) throw invalid('The body must be a JSON array of records', 'body');
  // Records keep their extra fields as sent, so what PostgreSQL cannot store is refused here.
  if (nestedDeeperThan(parsed, MAX_JSON_DEPTH)) throw tooDeep('body');
  // JSON can only carry a NUL escaped, so a body without the escape needs no walk through every
  // field of its thousand records.
  const nul = mayHoldNul(text) ? findNul(parsed) : undefined;
  if (nul !== undefined) throw nulRefused(nul || 'body');
  if (parsed.length > MAX_RECORDS_PER_REQUEST)
    throw tooLarge(`${parsed.length} records were sent; at most ${MAX_RECORDS_PER_REQUEST} are accepted per request`);
  return parsed.map((record, index) => parseGlucoseRecord(record, index));
}
