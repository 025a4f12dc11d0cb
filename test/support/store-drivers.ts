import type { S3Settings } from '../../src/config';
import { sharedS3Settings, swiftInstalled } from './s3-server';

/** Settings that point a test app at one object-store driver. */
export type StoreEnv = () => Promise<Record<string, string>>;

export function s3Env(settings: S3Settings): Record<string, string> {
  return {
    S3_ENDPOINT: settings.endpoint,
    S3_ACCESS_KEY: settings.accessKey,
    S3_SECRET_KEY: settings.secretKey,
    S3_BUCKET: settings.bucket,
    S3_REGION: settings.region,
  };
}

/**
 * The drivers end-to-end suites run against: the filesystem store always, the S3 driver against
 * the shared Swift server when it runs (required in CI through REQUIRE_S3=1).
 */
export function storeDrivers(): [name: string, env: StoreEnv][] {
  const filesystem: [string, StoreEnv] = ['filesystem', async () => ({})];
  const settings = sharedS3Settings();
  if (settings) return [filesystem, ['s3', async () => s3Env(settings)]];
  if (process.env.REQUIRE_S3 === '1') throw new Error('REQUIRE_S3=1 but no shared Swift S3 server runs');
  process.stderr.write(
    `S3 driver suites skipped: ${swiftInstalled() ? 'no shared server' : 'python3-swift is not installed'}\n`,
  );
  return [filesystem];
}
