import { GraphQLError, GraphQLScalarType } from 'graphql';
import type { Readable } from 'node:stream';
import type { IncomingContent } from '../kernel/content';
import { invalid } from '../kernel/errors';

export interface UploadedFile {
  stream: Readable;
  mediaType: string;
  filename?: string;
  declaredSize?: number;
}

/**
 * A file in flight: the value both a GraphQL multipart request and a legacy binary REST body
 * become, so one mutation serves both transports. Its bytes can be read once.
 */
export class Upload {
  private claimed = false;

  constructor(private readonly receive: () => Promise<UploadedFile>) {}

  /** The file's stream and announced type; waits until its part of a multipart body arrives. */
  async file(): Promise<UploadedFile> {
    if (this.claimed) throw invalid('The same uploaded file cannot be used twice');
    this.claimed = true;
    return this.receive();
  }

  get isClaimed(): boolean {
    return this.claimed;
  }
}

/** The upload as content for a domain service; an explicit media type wins over the file's own. */
export async function incomingContent(upload: Upload, mediaType?: string | null): Promise<IncomingContent> {
  const file = await upload.file();
  return { stream: file.stream, mediaType: mediaType ?? file.mediaType, declaredSize: file.declaredSize };
}

const NOT_A_FILE =
  'Upload values must be files of a multipart request (https://github.com/jaydenseric/graphql-multipart-request-spec)';

export const UploadScalar = new GraphQLScalarType<Upload, never>({
  name: 'Upload',
  description: `A file sent in a multipart request, as the GraphQL multipart request specification describes.`,
  parseValue: (value) => {
    if (value instanceof Upload) return value;
    throw new GraphQLError(NOT_A_FILE);
  },
  parseLiteral: () => {
    throw new GraphQLError(NOT_A_FILE);
  },
  serialize: () => {
    throw new GraphQLError('Upload is an input-only type');
  },
});
