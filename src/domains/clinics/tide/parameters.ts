import { invalid } from '../../../kernel/errors';
import { parseDateTime } from '../../../kernel/validation';
import { DEFAULT_CATEGORIES, isTideCategory, type TideCategoryKey } from './categories';
import { OBJECT_ID_PATTERN } from '../clinic-ids';

export const TIDE_PERIODS = ['1d', '7d', '14d', '30d'] as const;
export type TidePeriod = (typeof TIDE_PERIODS)[number];

const PERIOD = /^(1d|7d|14d|30d)$/;
const ZERO_TIME = new Date('0001-01-01T00:00:00Z').getTime();

/** A TIDE request as a transport hands it over: strings and lists, not yet checked. */
export interface TideRequest {
  period: string | null | undefined;
  tags: readonly string[] | null | undefined;
  lastDataCutoff: string | Date | null | undefined;
  categories?: readonly string[] | null;
  excludeNoData?: boolean | null;
  /** The name the transport gives the tags (REST `tags`, GraphQL `tagIds`), for errors. */
  tagsField?: string;
}

export interface TideParameters {
  period: TidePeriod;
  /** Every tag a patient must carry, without repeats; none: every patient of the clinic. */
  tags: string[];
  /** Inclusive minimum of a patient's last data. */
  lastDataCutoff: Date;
  /** In priority order, without repeats. */
  categories: TideCategoryKey[];
  excludeNoData: boolean;
}

export function parsePeriod(value: string | null | undefined): TidePeriod {
  if (value === null || value === undefined || value === '') throw invalid('period is required', 'period');
  if (!PERIOD.test(value)) throw invalid('period must be one of 1d, 7d, 14d, 30d', 'period');
  return value as TidePeriod;
}

/**
 * The tags of a request: ids that are not 24 lowercase hexadecimal characters are dropped, as
 * Tidepool's clinic service drops ids it cannot parse, but one usable id at least is required;
 * `field` and `list` name the parameter and its form as the caller's transport does.
 */
export function parseTags(
  values: readonly string[] | null | undefined,
  field = 'tags',
  list = 'a comma-separated list',
): string[] {
  if (!values?.length) throw invalid(`${field} is required: ${list} of patient tag ids`, field);
  const tags = [...new Set(values.filter((value) => OBJECT_ID_PATTERN.test(value)))];
  if (!tags.length)
    throw invalid(`${field} must hold at least one patient tag id: 24 lowercase hexadecimal characters`, field);
  return tags;
}

export function parseCutoff(value: string | Date | null | undefined): Date {
  if (value === null || value === undefined || value === '')
    throw invalid('lastDataCutoff is required: an RFC 3339 date-time', 'lastDataCutoff');
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw invalid('lastDataCutoff is not a date-time', 'lastDataCutoff');
    return value;
  }
  const cutoff = parseDateTime(value, 'lastDataCutoff');
  // Go's zero time, which Tidepool reads as no cutoff given.
  if (cutoff.getTime() === ZERO_TIME) throw invalid('no lastDataCutoff provided', 'lastDataCutoff');
  return cutoff;
}

/**
 * Named categories in the order given, unknown and repeated names ignored (so names none of which
 * is known ask no category, as in Tidepool); none given (null) means the default list.
 */
export function parseCategories(values: readonly string[] | null | undefined): TideCategoryKey[] {
  return values ? [...new Set(values.filter(isTideCategory))] : [...DEFAULT_CATEGORIES];
}

export function parseTideRequest(request: TideRequest): TideParameters {
  return {
    period: parsePeriod(request.period),
    // The service's callers speak GraphQL (REST reads its tags with parseTags first, keeping Tidepool's
    // "at least one tag"): a list, not a query string, and none asks for the whole clinic.
    tags: request.tags?.length ? parseTags(request.tags, request.tagsField, 'a list') : [],
    lastDataCutoff: parseCutoff(request.lastDataCutoff),
    categories: parseCategories(request.categories),
    excludeNoData: request.excludeNoData ?? false,
  };
}
