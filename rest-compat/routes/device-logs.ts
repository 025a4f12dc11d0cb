import type { DeviceLogsService } from '../../src/domains/device-logs/device-logs.service';
import { contentHeaders, dateTimeHeader, digestHeader, jsonUpload } from '../binary';
import { dateTimeParameter } from '../query-parameters';
import { legacyPaging } from '../paging';
import {
  arrayOf,
  dateTime,
  DEVICE_LOG,
  headerParameter,
  LEGACY_PAGING,
  queryParameter,
  string,
} from '../openapi/schemas';
import type { ContentRoute, RestRoute } from '../route';
import { DOWNLOAD_HEADERS } from '../../src/http/security-headers';

const LOG_FIELDS = 'id userId digestMD5 mediaType size createdTime startAt endAt revision';

/** The specification names the window `startAt`/`endAt`; Tidepool's clients read `startAtTime`/`endAtTime`. */
function wireLog(log: unknown) {
  const fields = log as Record<string, unknown>;
  return { ...fields, startAtTime: fields.startAt, endAtTime: fields.endAt };
}

const LOG_PAGES = legacyPaging(['deviceLogs']);

export const deviceLogRoutes: RestRoute[] = [
  {
    method: 'post',
    path: '/v1/users/:userId/device_logs',
    doc: {
      tag: 'Device logs',
      summary: 'Upload a device log: a JSON array of entries covering a time window',
      parameters: [
        headerParameter('Digest', string(), '`md5=<base64 MD5 of the body>`'),
        headerParameter('X-Logs-Start-At-Time', dateTime, 'The start of the window the entries cover'),
        headerParameter('X-Logs-End-At-Time', dateTime, 'The end of that window'),
      ],
      body: {
        mediaType: 'application/json',
        description: 'A JSON array of log entries (up to 100 MiB)',
        schema: arrayOf({ type: 'object' }),
        example: [{ time: '2024-01-02T03:04:05Z', event: 'sensor-warmup-started' }],
      },
      response: DEVICE_LOG,
      // 429: the account has UPLOADS_PER_ACCOUNT uploads in flight.
      errors: [429],
      tidepool: 'blob.v1.yaml#UploadDeviceLogs',
    },
    body: 'binary',
    document: `mutation ($input: UploadDeviceLogInput!) { uploadDeviceLog(input: $input) { deviceLog { ${LOG_FIELDS} } } }`,
    variables: (request) => ({
      input: {
        userId: request.params.userId,
        digestMD5: digestHeader(request.headers, { required: true }),
        startAt: dateTimeHeader(request.headers, 'X-Logs-Start-At-Time'),
        endAt: dateTimeHeader(request.headers, 'X-Logs-End-At-Time'),
        content: jsonUpload(request, 'The device log is empty; send a JSON array of entries'),
      },
    }),
    respond: (data) => wireLog((data.uploadDeviceLog as { deviceLog: unknown }).deviceLog),
    status: 201,
  },
  {
    method: 'get',
    path: '/v1/users/:userId/device_logs',
    doc: {
      tag: 'Device logs',
      summary: 'The device logs that overlap a time window',
      parameters: [
        queryParameter('startAtTime', dateTime, "The window's start", true),
        queryParameter('endAtTime', dateTime, "The window's end", true),
        ...LEGACY_PAGING,
      ],
      response: arrayOf(DEVICE_LOG),
      tidepool: 'blob.v1.yaml#ListDeviceLogs',
    },
    document: `query ($userId: ID!, $filter: DeviceLogFilter!, $first: Int, $after: String, $offset: Int) {
      deviceLogs(userId: $userId, filter: $filter, first: $first, after: $after, offset: $offset) {
        nodes { ${LOG_FIELDS} } pageInfo { hasNextPage endCursor } } }`,
    variables: (request) => {
      const startAt = dateTimeParameter(request.query, 'startAtTime');
      const endAt = dateTimeParameter(request.query, 'endAtTime');
      return { userId: request.params.userId, filter: { startAt, endAt }, ...LOG_PAGES.variables(request) };
    },
    pages: LOG_PAGES.pages,
    respond: (data, _reply, request) => LOG_PAGES.rows(data, request).map(wireLog),
    status: 200,
  },
  {
    method: 'get',
    path: '/v1/device_logs/:id',
    doc: { tag: 'Device logs', summary: "A device log's metadata", response: DEVICE_LOG },
    document: `query ($id: ID!) { deviceLog(id: $id) { ${LOG_FIELDS} } }`,
    variables: ({ params }) => ({ id: params.id }),
    respond: (data) => wireLog(data.deviceLog),
    status: 200,
  },
];

export function deviceLogDownloads(logs: DeviceLogsService): ContentRoute[] {
  return [
    {
      path: '/v1/device_logs/:id/content',
      doc: {
        tag: 'Device logs',
        summary: "A device log's content",
        response: { type: 'array', items: { type: 'object' } },
        responseHeaders: ['Digest', 'Content-Length', 'Content-Disposition', 'Start-At', 'End-At'],
      },
      open: async (scope, params) => {
        const { log, stream } = await logs.openContent(scope, params.id);
        const headers = {
          ...contentHeaders(log),
          'Start-At': log.startAtTime.toISOString(),
          'End-At': log.endAtTime.toISOString(),
          ...DOWNLOAD_HEADERS,
        };
        return { stream, headers };
      },
    },
  ];
}
