import { randomBucket, startS3Server, swiftInstalled } from '../support/s3-server';

/** The S3 server the bench measures the S3 driver against, as S3_* variables for the service. */
export interface BenchS3 {
  env: Record<string, string>;
  /** Where the server came from, for the notice printed before the rows. */
  origin: string;
  close(): Promise<void>;
}

/**
 * S3_ENDPOINT and friends from the bench's environment when set (a real MinIO, say), else a
 * throw-away OpenStack Swift with s3api started here, else undefined (the S3 rows are skipped).
 */
export async function startBenchS3(): Promise<BenchS3 | undefined> {
  const { S3_ENDPOINT, S3_ACCESS_KEY, S3_SECRET_KEY, S3_BUCKET, S3_REGION } = process.env;
  if (S3_ENDPOINT) {
    const env = {
      S3_ENDPOINT,
      S3_ACCESS_KEY: S3_ACCESS_KEY ?? '',
      S3_SECRET_KEY: S3_SECRET_KEY ?? '',
      S3_BUCKET: S3_BUCKET ?? '',
      S3_REGION: S3_REGION ?? 'us-east-1',
    };
    return { env, origin: `S3 server at ${S3_ENDPOINT}`, close: async () => undefined };
  }
  if (!swiftInstalled()) return undefined;
  const server = await startS3Server();
  const { endpoint, accessKey, secretKey, region } = server.settings;
  return {
    env: {
      S3_ENDPOINT: endpoint,
      S3_ACCESS_KEY: accessKey,
      S3_SECRET_KEY: secretKey,
      S3_BUCKET: randomBucket(),
      S3_REGION: region,
    },
    origin: `OpenStack Swift with s3api at ${endpoint}, started for this run`,
    close: () => server.destroy(),
  };
}
