import type { DeviceLogsService } from '../../src/domains/device-logs/device-logs.service';
import { contentHeaders, dateTimeHeader, dateTimeParameter, digestHeader, jsonUpload } from '../binary';
import { legacyPaging } from '../paging';
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
    document: `query ($userId: ID!, $filter: DeviceLogFilter!, $after: String) {
      deviceLogs(userId: $userId, filter: $filter, first: 100, after: $after) {
        nodes { ${LOG_FIELDS} } pageInfo { hasNextPage endCursor } } }`,
    variables: (request) => {
      const startAt = dateTimeParameter(request.query, 'startAtTime');
      const endAt = dateTimeParameter(request.query, 'endAtTime');
      LOG_PAGES.check(request);
      return { userId: request.params.userId, filter: { startAt, endAt } };
    },
    pages: LOG_PAGES.pages,
    respond: (data, _reply, request) => LOG_PAGES.rows(data, request).map(wireLog),
    status: 200,
  },
  {
    method: 'get',
    path: '/v1/device_logs/:id',
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
