import { invalid } from '../../src/kernel/errors';
import { compact } from '../body';
import { blobContent, contentHeaders, integerParameter, listParameter } from '../binary';
import type { ContentRoute, RestRoute } from '../route';
import type { BlobsService } from '../../src/domains/blobs/blobs.service';
import { BLOB_STATUS } from '../enums';
import { legacyPaging } from '../paging';
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

const statusesOf = (query: Record<string, unknown>) => {
  const statuses = listParameter(query, 'status');
  return statuses && BLOB_STATUS.values(statuses, 'status');
};

export const blobRoutes: RestRoute[] = [
  {
    method: 'get',
    path: '/v1/users/:userId/blobs',
    document: `query ($userId: ID!, $filter: BlobFilter, $after: String) {
      blobs(userId: $userId, filter: $filter, first: 100, after: $after) {
        nodes { ${BLOB_FIELDS} } pageInfo { hasNextPage endCursor } } }`,
    variables: (request) => {
      const filter = { mediaType: listParameter(request.query, 'mediaType'), status: statusesOf(request.query) };
      BLOB_PAGES.check(request);
      return { userId: request.params.userId, filter };
    },
    pages: BLOB_PAGES.pages,
    respond: (data, _reply, request) => BLOB_PAGES.rows(data, request).map(wireBlob),
    status: 200,
  },
  {
    method: 'post',
    path: '/v1/users/:userId/blobs',
    body: 'binary',
    document: `mutation ($input: CreateBlobInput!) { createBlob(input: $input) { blob { ${BLOB_FIELDS} } } }`,
    variables: (request) => ({ input: { userId: request.params.userId, ...blobInput(request) } }),
    respond: (data) => wireBlob((data.createBlob as { blob: unknown }).blob),
    status: 201,
  },
  {
    method: 'get',
    path: '/v1/blobs/:blobId',
    document: `query ($id: ID!) { blob(id: $id) { ${BLOB_FIELDS} } }`,
    variables: ({ params }) => ({ id: params.blobId }),
    respond: (data) => wireBlob(data.blob),
    status: 200,
  },
  {
    // Not in Tidepool: the specification's "update that adds content" (created → available).
    method: 'put',
    path: '/v1/blobs/:blobId',
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
    document: 'mutation ($input: DeleteBlobInput!) { deleteBlob(input: $input) { deletedBlobId } }',
    variables: ({ params, query }) => ({
      input: { id: params.blobId, revision: integerParameter(query, 'revision') },
    }),
    status: 204,
  },
  {
    method: 'delete',
    path: '/v1/users/:userId/blobs',
    document: 'mutation ($input: DeleteUserBlobsInput!) { deleteUserBlobs(input: $input) { userId } }',
    variables: ({ params }) => ({ input: { userId: params.userId } }),
    status: 204,
  },
];

export function blobDownloads(blobs: BlobsService): ContentRoute[] {
  return [
    {
      path: '/v1/blobs/:blobId/content',
      open: async (scope, params) => {
        const { blob, stream } = await blobs.openContent(scope, params.blobId);
        return { stream, headers: { ...contentHeaders(blob), ...DOWNLOAD_HEADERS } };
      },
    },
  ];
}
