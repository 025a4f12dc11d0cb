import { Readable } from 'node:stream';
import type { GlucoseService } from '../../src/domains/glucose/glucose.service';
import type { StoredReading } from '../../src/domains/glucose/glucose.loaders';
import { invalid } from '../../src/kernel/errors';
import { jsonUpload } from '../binary';
import { dateTimeParameter, listParameter } from '../query-parameters';
import { LegacyEnum } from '../enums';
import { legacyPaging } from '../paging';
import {
  arrayOf,
  dateTime,
  graphqlInput,
  LEGACY_PAGING,
  legacyEnum,
  listQuery,
  object,
  queryParameter,
  string,
  wrapped as wrappedSchema,
} from '../openapi/schemas';
import type { ContentRoute, RestRequest, RestRoute } from '../route';

const DATASET_TYPE = new LegacyEnum({ normal: 'NORMAL', continuous: 'CONTINUOUS' });
const DATASET_STATE = new LegacyEnum({ open: 'OPEN', closed: 'CLOSED' });

const DATASET_FIELDS = `id userId dataSetType state deduplicator client { name version } deviceId deviceModel
  deviceManufacturers deviceTags deviceSerialNumber timezone timezoneOffset time computerTime timeProcessing
  conversionOffset clockDriftOffset version createdUserId createdTime modifiedTime`;

type Fields = Record<string, unknown>;

/** Tidepool's dataset JSON (`type: "upload"`, `uploadId` = id); absent fields are left out. */
function wireDataset(dataset: unknown) {
  const { dataSetType, state, deduplicator, client, deviceManufacturers, deviceTags, ...rest } = dataset as Fields;
  const present = Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== null));
  const lowerState = DATASET_STATE.legacy(state as string);
  return {
    ...present,
    uploadId: rest.id,
    type: 'upload',
    dataSetType: DATASET_TYPE.legacy(dataSetType as string),
    dataState: lowerState,
    state: lowerState,
    deduplicator: { name: deduplicator },
    ...(client
      ? { client: Object.fromEntries(Object.entries(client as Fields).filter(([, value]) => value !== null)) }
      : {}),
    ...((deviceManufacturers as string[]).length ? { deviceManufacturers } : {}),
    ...((deviceTags as string[]).length ? { deviceTags } : {}),
  };
}

/** Tidepool wraps platform answers as `{data, meta}`. */
const wrapped = (data: unknown) => ({ data, meta: {} });

/** The dataset body as the GraphQL input: Tidepool's names, the enum and deduplicator in GraphQL's form. */
function datasetInput(request: RestRequest): Fields {
  const body = request.body;
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body))
    throw invalid('The dataset must be a JSON object', 'body');
  const { type, dataSetType, deduplicator, client, ...rest } = body as Fields;
  if (type !== undefined && type !== 'upload') throw invalid('type must be upload', 'type');
  const input: Fields = { ...rest, userId: request.params.userId };
  if (dataSetType !== undefined) input.dataSetType = DATASET_TYPE.value(dataSetType, 'dataSetType');
  if (deduplicator !== undefined) {
    const name = (deduplicator as Fields | null)?.name;
    if (typeof name !== 'string') throw invalid('deduplicator must be { "name": <deduplicator name> }', 'deduplicator');
    input.deduplicator = name;
  }
  if (client !== undefined) {
    // `private` is the uploader's own, opaque to Tidepool's clients; it is not kept.
    const { private: _private, ...named } = (client ?? {}) as Fields;
    input.client = named;
  }
  return input;
}

const DATASET_PAGES = legacyPaging(['datasets']);

/** A record as Tidepool's data model has it (src/domains/glucose/glucose-record.ts checks the rest). */
const RECORD = object(
  {
    type: { type: 'string', enum: ['cbg', 'smbg'] },
    time: dateTime,
    value: { type: 'number', minimum: 0 },
    units: { type: 'string', enum: ['mmol/L', 'mmol/l', 'mg/dL', 'mg/dl'] },
    deviceId: string(),
  },
  ['type', 'time', 'value', 'units'],
);

/** One record of each type the service takes. */
export const RECORD_EXAMPLES = [
  {
    type: 'cbg',
    time: '2024-01-02T03:05:00Z',
    value: 126,
    units: 'mg/dL',
    deviceId: 'DexG6_0123456789',
    sampleInterval: 300000,
    trend: 'constant',
  },
  {
    type: 'smbg',
    time: '2024-01-02T07:30:00Z',
    value: 6.4,
    units: 'mmol/L',
    subType: 'manual',
    deviceId: 'Contour_42',
  },
];

const DATASET = object(
  {
    id: string(),
    uploadId: string(),
    userId: string(),
    type: { const: 'upload' },
    dataSetType: legacyEnum(DATASET_TYPE),
    state: legacyEnum(DATASET_STATE),
    dataState: legacyEnum(DATASET_STATE),
    deduplicator: object({ name: string() }),
    createdTime: dateTime,
  },
  ['id', 'uploadId', 'userId', 'type', 'dataSetType', 'state', 'dataState', 'deduplicator'],
);

/** The GraphQL input, with Tidepool's spelling of its type, enum and deduplicator. */
const DATASET_BODY = {
  allOf: [
    graphqlInput('CreateDatasetInput', ['userId', 'dataSetType', 'deduplicator']),
    object({
      type: { const: 'upload' },
      dataSetType: legacyEnum(DATASET_TYPE),
      deduplicator: object({ name: string() }, ['name']),
    }),
  ],
};

/** Where Tidepool's clients find datasets: both spellings of the path serve the same routes. */
type DatasetPrefix = 'datasets' | 'data_sets';

const openDataset = (prefix: DatasetPrefix): RestRoute => ({
  method: 'post',
  path: `/v1/users/:userId/${prefix}`,
  doc: {
    tag: 'Data',
    summary: 'Open a dataset (an upload) for an account',
    body: {
      schema: DATASET_BODY,
      example: {
        type: 'upload',
        dataSetType: 'continuous',
        client: { name: 'org.example.uploader', version: '1.2.0' },
        deduplicator: { name: 'org.tidepool.deduplicator.dataset.device.deactivate.hash' },
        deviceId: 'DexG6_0123456789',
        deviceManufacturers: ['Dexcom'],
        deviceModel: 'G6',
        timezone: 'America/Chicago',
        timeProcessing: 'utc-bootstrapping',
      },
    },
    response: wrappedSchema(DATASET),
  },
  document: `mutation ($input: CreateDatasetInput!) { createDataset(input: $input) { dataset { ${DATASET_FIELDS} } } }`,
  variables: (request) => ({ input: datasetInput(request) }),
  respond: (data) => wrapped(wireDataset((data.createDataset as Fields).dataset)),
  status: 201,
});

const addDatasetData = (prefix: DatasetPrefix): RestRoute => ({
  method: 'post',
  path: `/v1/${prefix}/:datasetId/data`,
  doc: {
    tag: 'Data',
    summary: 'Add records (cbg, smbg) to an open dataset',
    body: {
      mediaType: 'application/json',
      description: 'A JSON array of at most 1,000 `cbg` and `smbg` records; one invalid record refuses them all',
      schema: arrayOf(RECORD),
      example: RECORD_EXAMPLES,
    },
    response: wrappedSchema(arrayOf({})),
  },
  body: 'binary',
  document: 'mutation ($input: AddDatasetDataInput!) { addDatasetData(input: $input) { stored } }',
  variables: (request) => {
    const records = jsonUpload(request, 'The request has no body: send a JSON array of records');
    return { input: { datasetId: request.params.datasetId, records } };
  },
  respond: () => wrapped([]),
  status: 200,
});

const closeDataset = (prefix: DatasetPrefix): RestRoute => ({
  method: 'put',
  path: `/v1/${prefix}/:datasetId`,
  doc: {
    tag: 'Data',
    summary: 'Close a dataset (the body is ignored)',
    response: wrappedSchema(DATASET),
  },
  // Tidepool ignores the body and closes the dataset ({"dataState":"closed"} in its docs).
  document: `mutation ($input: DatasetInput!) { closeDataset(input: $input) { dataset { ${DATASET_FIELDS} } } }`,
  variables: (request) => ({ input: { id: request.params.datasetId } }),
  respond: (data) => wrapped(wireDataset((data.closeDataset as Fields).dataset)),
  status: 200,
});

const deleteDataset = (prefix: DatasetPrefix): RestRoute => ({
  method: 'delete',
  path: `/v1/${prefix}/:datasetId`,
  doc: { tag: 'Data', summary: 'Delete a dataset and its records' },
  document: 'mutation ($input: DatasetInput!) { deleteDataset(input: $input) { deletedDatasetId } }',
  variables: (request) => ({ input: { id: request.params.datasetId } }),
  status: 204,
});

const listDatasets = (prefix: DatasetPrefix): RestRoute => ({
  method: 'get',
  path: `/v1/users/:userId/${prefix}`,
  doc: {
    tag: 'Data',
    summary: "An account's datasets",
    parameters: LEGACY_PAGING,
    response: arrayOf(DATASET),
  },
  document: `query ($userId: ID!, $first: Int, $after: String, $offset: Int) {
      datasets(userId: $userId, first: $first, after: $after, offset: $offset) { nodes { ${DATASET_FIELDS} } pageInfo { hasNextPage endCursor } } }`,
  variables: (request) => {
    return { userId: request.params.userId, ...DATASET_PAGES.variables(request) };
  },
  pages: DATASET_PAGES.pages,
  respond: (data, _reply, request) => DATASET_PAGES.rows(data, request).map(wireDataset),
  status: 200,
});

const datasetRoutes = (prefix: DatasetPrefix): RestRoute[] => [
  openDataset(prefix),
  addDatasetData(prefix),
  closeDataset(prefix),
  deleteDataset(prefix),
  listDatasets(prefix),
];

export const glucoseRoutes: RestRoute[] = [
  ...datasetRoutes('datasets'),
  ...datasetRoutes('data_sets'),
  {
    method: 'get',
    path: '/v1/users/:userId/data_sources',
    doc: {
      tag: 'Data',
      summary: "An account's data sources (connected providers)",
      response: arrayOf(
        object({ id: string(), providerName: string(), state: string() }, ['id', 'providerName', 'state']),
      ),
    },
    document: 'query ($userId: ID!) { dataSources(userId: $userId) { id providerName state } }',
    variables: ({ params }) => ({ userId: params.userId }),
    respond: (data) => data.dataSources,
    status: 200,
  },
];

/** A stored reading as Tidepool's read API answers it: its fields as sent, the value in mmol/L. */
function wireReading(reading: StoredReading) {
  return {
    ...reading.fields,
    id: reading.id,
    type: reading.type,
    time: reading.time.toISOString(),
    value: reading.value,
    units: 'mmol/L',
    uploadId: reading.datasetId,
    ...(reading.deviceId ? { deviceId: reading.deviceId } : {}),
    createdTime: reading.createdTime.toISOString(),
  };
}

/** The JSON array of every batch, written as the batches arrive. */
async function* jsonArray(batches: AsyncIterable<StoredReading[]>): AsyncGenerator<string> {
  let first = true;
  yield '[';
  for await (const batch of batches) {
    for (const reading of batch) {
      yield `${first ? '' : ','}${JSON.stringify(wireReading(reading))}`;
      first = false;
    }
  }
  yield ']';
}

const READ_TYPES = ['cbg', 'smbg'] as const;

const READING = object(
  {
    id: string(),
    type: { enum: [...READ_TYPES] },
    time: dateTime,
    value: { type: 'number' },
    units: { const: 'mmol/L' },
    uploadId: string(),
    createdTime: dateTime,
  },
  ['id', 'type', 'time', 'value', 'units', 'uploadId'],
);

/**
 * `GET /data/{userId}`, Tidepool's read API: a user's active readings in time order, streamed
 * from the database in batches, so any range answers in constant memory.
 */
export function glucoseDownloads(glucose: GlucoseService): ContentRoute[] {
  return [
    {
      path: '/data/:userId',
      doc: {
        tag: 'Data',
        summary: "An account's readings in time order",
        parameters: [
          listQuery(
            'type',
            { type: 'string', enum: [...READ_TYPES] },
            'Only readings of these types (others are ignored)',
          ),
          queryParameter('startDate', dateTime, 'Readings at or after this time'),
          queryParameter('endDate', dateTime, 'Readings before this time'),
        ],
        response: arrayOf(READING),
      },
      open: async (scope, params, query) => {
        const asked = listParameter(query, 'type');
        const types = asked ? READ_TYPES.filter((type) => asked.includes(type)) : [...READ_TYPES];
        const date = (name: string) => (query[name] === undefined ? null : new Date(dateTimeParameter(query, name)));
        const filter = { types, from: date('startDate'), to: date('endDate') };
        const batches = types.length ? await glucose.readings(scope, params.userId, filter) : (async function* () {})();
        return {
          stream: Readable.from(jsonArray(batches)),
          headers: { 'Content-Type': 'application/json; charset=utf-8' },
        };
      },
    },
  ];
}
