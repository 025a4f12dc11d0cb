import { invalid } from '../../src/kernel/errors';
import { compact } from '../body';
import { blobContent, contentHeaders } from '../binary';
import { integerParameter, listParameter } from '../query-parameters';
import type { ContentRoute, RestRoute } from '../route';
import type { BlobsService } from '../../src/domains/blobs/blobs.service';
import { BLOB_STATUS } from '../enums';
import { legacyPaging } from '../paging';
import {
  arrayOf,
  BLOB,
  headerParameter,
  integer,
  LEGACY_PAGING,
  legacyEnum,
  listQuery,
  queryParameter,
  string,
} from '../openapi/schemas';
import { DOWNLOAD_HEADERS } from '../../src/http/security-headers';

const BLOB_FIELDS = 'id userId digestMD5 mediaType size status createdTime modifiedTime revision';

/** Tidepool omits what a blob does not have yet (digest and size of a `created` blob); statuses are lowercase. */
const wireBlob = (blob: unknown) => {
  const fields = blob as Record<string, unknown>;
  return compact({ ...fields, status: BLOB_STATUS.legacy(String(fields.status)) });
};

/** The binary body and its headers as the fields of the blob mutations' inputs. */
function blobInput(request: Parameters<typeof blobContent>[0]) {
  const { mediaType, digest, content } = blobContent(request);
  return { mediaType, digestMD5: digest, content };
}

const BLOB_PAGES = legacyPaging(['blobs']);

/** The headers a blob upload describes its content with. */
const BLOB_HEADERS = [
  headerParameter('Content-Type', string(), 'The media type of the content'),
  headerParameter('Digest', string(), '`md5=<base64 MD5 of the body>`; required with content', false),
];
const UPLOAD = { mediaType: '*/*', description: 'The content (up to 100 MiB)', example: 'any bytes' };

const statusesOf = (query: Record<string, unknown>) => {
  const statuses = listParameter(query, 'status');
  return statuses && BLOB_STATUS.values(statuses, 'status');
};

export const blobRoutes: RestRoute[] = [
  {
    method: 'get',
    path: '/v1/users/:userId/blobs',
    doc: {
      tag: 'Blobs',
      summary: "An account's blobs, oldest first",
      parameters: [
        listQuery('mediaType', string(), 'Only blobs of these media types'),
        listQuery('status', legacyEnum(BLOB_STATUS), 'Only blobs in these states'),
        ...LEGACY_PAGING,
      ],
      response: arrayOf(BLOB),
      tidepool: 'blob.v1.yaml#ListBlobs',
    },
    document: `query ($userId: ID!, $filter: BlobFilter, $first: Int, $after: String, $offset: Int) {
      blobs(userId: $userId, filter: $filter, first: $first, after: $after, offset: $offset) {
        nodes { ${BLOB_FIELDS} } pageInfo { hasNextPage endCursor } } }`,
    variables: (request) => {
      const filter = { mediaType: listParameter(request.query, 'mediaType'), status: statusesOf(request.query) };
      return { userId: request.params.userId, filter, ...BLOB_PAGES.variables(request) };
    },
    pages: BLOB_PAGES.pages,
    respond: (data, _reply, request) => BLOB_PAGES.rows(data, request).map(wireBlob),
    status: 200,
  },
  {
    method: 'post',
    path: '/v1/users/:userId/blobs',
    doc: {
      tag: 'Blobs',
      summary: 'Create a blob, with its content (or without, to add it later)',
      parameters: BLOB_HEADERS,
      body: UPLOAD,
      response: BLOB,
      // 429: the account has UPLOADS_PER_ACCOUNT uploads in flight.
      errors: [409, 429],
      tidepool: 'blob.v1.yaml#CreateBlob',
    },
    body: 'binary',
    document: `mutation ($input: CreateBlobInput!) { createBlob(input: $input) { blob { ${BLOB_FIELDS} } } }`,
    variables: (request) => ({ input: { userId: request.params.userId, ...blobInput(request) } }),
    respond: (data) => wireBlob((data.createBlob as { blob: unknown }).blob),
    status: 201,
  },
  {
    method: 'get',
    path: '/v1/blobs/:blobId',
    doc: {
      tag: 'Blobs',
      summary: "A blob's metadata",
      response: BLOB,
      tidepool: 'blob.v1.yaml#GetBlobMetadata',
    },
    document: `query ($id: ID!) { blob(id: $id) { ${BLOB_FIELDS} } }`,
    variables: ({ params }) => ({ id: params.blobId }),
    respond: (data) => wireBlob(data.blob),
    status: 200,
  },
  {
    // Not in Tidepool: the specification's "update that adds content" (created → available).
    method: 'put',
    path: '/v1/blobs/:blobId',
    doc: {
      tag: 'Blobs',
      summary: 'Add the content of a created blob (it becomes available)',
      parameters: BLOB_HEADERS,
      body: UPLOAD,
      response: BLOB,
      // 429: the account has UPLOADS_PER_ACCOUNT uploads in flight.
      errors: [409, 429],
    },
    body: 'binary',
    document: `mutation ($input: AddBlobContentInput!) { addBlobContent(input: $input) { blob { ${BLOB_FIELDS} } } }`,
    variables: (request) => {
      const upload = blobInput(request);
      if (!upload.content) throw invalid('The request has no body: send the content to add to the blob', 'body');
      return { input: { id: request.params.blobId, ...upload } };
    },
    respond: (data) => wireBlob((data.addBlobContent as { blob: unknown }).blob),
    status: 200,
  },
  {
    method: 'delete',
    path: '/v1/blobs/:blobId',
    doc: {
      tag: 'Blobs',
      summary: 'Delete a blob',
      parameters: [queryParameter('revision', integer, 'Delete only if the blob is still at this revision (else 409)')],
      errors: [409],
      tidepool: 'blob.v1.yaml#DeleteBlob',
    },
    document: 'mutation ($input: DeleteBlobInput!) { deleteBlob(input: $input) { deletedBlobId } }',
    variables: ({ params, query }) => ({
      input: { id: params.blobId, revision: integerParameter(query, 'revision') },
    }),
    status: 204,
  },
  {
    method: 'delete',
    path: '/v1/users/:userId/blobs',
    doc: {
      tag: 'Blobs',
      summary: "Delete all of an account's blobs",
      tidepool: 'blob.v1.yaml#DeleteAllBlobs',
    },
    document: 'mutation ($input: DeleteUserBlobsInput!) { deleteUserBlobs(input: $input) { userId } }',
    variables: ({ params }) => ({ input: { userId: params.userId } }),
    status: 204,
  },
];

export function blobDownloads(blobs: BlobsService): ContentRoute[] {
  return [
    {
      path: '/v1/blobs/:blobId/content',
      doc: {
        tag: 'Blobs',
        summary: "A blob's content",
        response: { type: 'string', format: 'binary' },
        responseMediaType: '*/*',
        responseHeaders: ['Digest', 'Content-Length', 'Content-Disposition'],
        tidepool: 'blob.v1.yaml#GetBlobContent',
      },
      open: async (scope, params) => {
        const { blob, stream } = await blobs.openContent(scope, params.blobId);
        return { stream, headers: { ...contentHeaders(blob), ...DOWNLOAD_HEADERS } };
      },
    },
  ];
}
