import { parseDateTime } from '../../src/kernel/validation';
import { oneParameter } from '../query-parameters';
import { LegacyEnum } from '../enums';
import {
  arrayOf,
  boolean,
  dateTime,
  LEGACY_PAGING,
  legacyEnum,
  object,
  queryParameter,
  string,
  strings,
} from '../openapi/schemas';
import { legacyPaging } from '../paging';
import type { RestRequest, RestRoute } from '../route';

/** GraphQL's AccessOutcome values as the REST wire writes them. */
const ACCESS_OUTCOME = new LegacyEnum({ allowed: 'ALLOWED', refused: 'REFUSED' });

const ENTRY_FIELDS =
  'id at userId accessorUserId accessorName accessorIsServer clientId clinicId operation objectIds outcome requestId';

const nullableString = { type: ['string', 'null'] };

const ACCESS_LOG_ENTRY = object(
  {
    id: string('The entry id; larger ids are newer'),
    time: dateTime,
    userId: string('The account whose data was read or changed'),
    accessorUserId: nullableString,
    accessorName: nullableString,
    accessorIsServer: boolean,
    clientId: nullableString,
    clinicId: nullableString,
    operation: string('The REST route or GraphQL root field served'),
    objectIds: strings,
    outcome: legacyEnum(ACCESS_OUTCOME),
    requestId: string(),
  },
  ['id', 'time', 'userId', 'accessorIsServer', 'operation', 'objectIds', 'outcome', 'requestId'],
);

/**
 * The log's connection pages by cursor alone, so a page is read from the log's newest entry:
 * pages reach its newest 1000 entries (ten connection pages at most); `startAt` and `endAt`
 * reach older ones.
 */
const ENTRY_PAGES = legacyPaging(['user', 'accessLog'], { skip: 'read', deepest: 1000 });

function filterOf({ query }: RestRequest) {
  const outcome = oneParameter(query, 'outcome');
  const startAt = oneParameter(query, 'startAt');
  const endAt = oneParameter(query, 'endAt');
  return {
    outcome: outcome === undefined ? null : ACCESS_OUTCOME.value(outcome, 'outcome'),
    startAt: startAt === undefined ? null : parseDateTime(startAt, 'startAt').toISOString(),
    endAt: endAt === undefined ? null : parseDateTime(endAt, 'endAt').toISOString(),
  };
}

const wireEntry = (entry: unknown) => {
  const { at, outcome, ...fields } = entry as Record<string, unknown>;
  return { ...fields, time: at, outcome: ACCESS_OUTCOME.legacy(String(outcome)) };
};

export const accessLogRoutes: RestRoute[] = [
  {
    // Not in Tidepool, which keeps no access log its users can read.
    method: 'get',
    path: '/v1/users/:userId/access_log',
    doc: {
      tag: 'Access log',
      summary: "Who read or changed an account's data, newest first",
      description:
        'Every access to the account by someone else (a person it shares with, a clinician, a custodian, a server), allowed or refused. The account, its custodians and server tokens may read it. Pages reach the newest 1000 entries (a deeper page is refused, 400): `startAt` and `endAt` reach older ones.',
      parameters: [
        queryParameter('outcome', legacyEnum(ACCESS_OUTCOME), 'Only allowed, or only refused, accesses'),
        queryParameter('startAt', dateTime, 'Only entries at or after this instant'),
        queryParameter('endAt', dateTime, 'Only entries before this instant'),
        ...LEGACY_PAGING,
      ],
      response: arrayOf(ACCESS_LOG_ENTRY),
    },
    document: `query ($userId: ID!, $filter: AccessLogFilter, $after: String) {
      user(id: $userId) { accessLog(filter: $filter, first: 100, after: $after) {
        nodes { ${ENTRY_FIELDS} } pageInfo { hasNextPage endCursor } } } }`,
    variables: (request) => {
      const filter = filterOf(request);
      return { userId: request.params.userId, filter, ...ENTRY_PAGES.variables(request) };
    },
    pages: ENTRY_PAGES.pages,
    respond: (data, _reply, request) => ENTRY_PAGES.rows(data, request).map(wireEntry),
    status: 200,
  },
];
