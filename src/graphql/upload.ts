import { GraphQLError, GraphQLScalarType } from 'graphql';
import { Upload } from '../kernel/upload';

const NOT_A_FILE =
  'Upload values must be files of a multipart request (https://github.com/jaydenseric/graphql-multipart-request-spec)';

/** The GraphQL face of the kernel's Upload: only values the multipart middleware made pass. */
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
