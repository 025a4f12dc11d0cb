import path from 'node:path';
import type { Config } from '../../config';
import { FilesystemStore } from './filesystem-store';
import type { ObjectStore } from './object-store';
import { S3Store } from './s3-store';
import { MeteredStore } from './metered-store';

/**
 * The configured store: S3 (AWS, MinIO, Swift s3api…) when S3_ENDPOINT is set, else a folder in
 * DATA_DIR. Synchronous and offline: the S3 bucket is checked (and created if missing) by the
 * first operation, so an unreachable server shows in /readyz rather than blocking start-up.
 */
export function createObjectStore(config: Config): ObjectStore {
  return new MeteredStore(
    config.s3 ? new S3Store(config.s3) : new FilesystemStore(path.join(config.dataDir, 'objects')),
  );
}
