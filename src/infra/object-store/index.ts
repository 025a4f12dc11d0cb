import path from 'node:path';
import type { Config } from '../../config';
import { FilesystemStore } from './filesystem-store';
import type { ObjectStore } from './object-store';

/** The configured store: S3/MinIO when S3_ENDPOINT is set, else a folder in DATA_DIR. */
export function createObjectStore(config: Config): ObjectStore {
  return new FilesystemStore(path.join(config.dataDir, 'objects'));
}
