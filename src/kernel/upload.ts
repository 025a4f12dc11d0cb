import type { Readable } from 'node:stream';
import type { IncomingContent } from './content';
import { invalid } from './errors';

export interface UploadedFile {
  stream: Readable;
  mediaType: string;
  filename?: string;
  declaredSize?: number;
}

/**
 * A file in flight: the value both a GraphQL multipart request and a legacy binary REST body
 * become, so one mutation serves both transports. Its bytes can be read once. It lives in the
 * kernel because both transports and the domains carry it; the GraphQL scalar that admits it
 * stays in src/graphql/upload.ts.
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
