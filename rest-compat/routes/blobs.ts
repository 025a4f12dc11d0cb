import { invalid } from '../../src/kernel/errors';
import { compact } from '../body';
import { blobContent, contentHeaders, integerParameter, listParameter } from '../binary';
import type { ContentRoute, RestRoute } from '../route';
import type { BlobsService } from '../../src/domains/blobs/blobs.service';
import { DOWNLOAD_HEADERS } from '../../src/http/security-headers';

const BLOB_FIELDS = 'id userId digestMD5 mediaType size status createdTime modifiedTime revision';

/** Tidepool omits what a blob does not have yet (digest and size of a `created` blob). */
const wireBlob = (blob: unknown) => compact(blob as Record<string, unknown>);

export const blobRoutes: RestRoute[] = [
  {
    method: 'get',
    path: '/v1/users/:userId/blobs',
    document: `query ($userId: ID!, $mediaType: [String!], $status: [BlobStatus!], $page: Int, $size: Int) {
      blobs(userId: $userId, mediaType: $mediaType, status: $status, page: $page, size: $size) { ${BLOB_FIELDS} } }`,
    variables: ({ params, query }) => ({
      userId: params.userId,
      mediaType: listParameter(query, 'mediaType'),
      status: listParameter(query, 'status'),
      page: integerParameter(query, 'page'),
      size: integerParameter(query, 'size'),
    }),
    respond: (data) => (data.blobs as unknown[]).map(wireBlob),
    status: 200,
  },
  {
    method: 'post',
    path: '/v1/users/:userId/blobs',
    body: 'binary',
    document: `mutation ($userId: ID!, $mediaType: String!, $digest: String, $content: Upload) {
      createBlob(userId: $userId, mediaType: $mediaType, digestMD5: $digest, content: $content) { ${BLOB_FIELDS} } }`,
    variables: (request) => ({ userId: request.params.userId, ...blobContent(request) }),
    respond: (data) => wireBlob(data.createBlob),
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
    document: `mutation ($id: ID!, $mediaType: String!, $digest: String, $content: Upload!) {
      addBlobContent(id: $id, mediaType: $mediaType, digestMD5: $digest, content: $content) { ${BLOB_FIELDS} } }`,
    variables: (request) => {
      const upload = blobContent(request);
      if (!upload.content) throw invalid('The request has no body: send the content to add to the blob', 'body');
      return { id: request.params.blobId, ...upload };
    },
    respond: (data) => wireBlob(data.addBlobContent),
    status: 200,
  },
  {
    method: 'delete',
    path: '/v1/blobs/:blobId',
    document: 'mutation ($id: ID!, $revision: Int) { deleteBlob(id: $id, revision: $revision) }',
    variables: ({ params, query }) => ({ id: params.blobId, revision: integerParameter(query, 'revision') }),
    status: 204,
  },
  {
    method: 'delete',
    path: '/v1/users/:userId/blobs',
    document: 'mutation ($userId: ID!) { deleteUserBlobs(userId: $userId) }',
    variables: ({ params }) => ({ userId: params.userId }),
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
