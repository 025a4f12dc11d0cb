import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { ConfigError, loadConfig } from './config';

/** What production requires besides NODE_ENV. */
const PRODUCTION = {
  NODE_ENV: 'production',
  SMTP_URL: 'smtp://mail.example.org',
  MAIL_FROM: 'Islet <no-reply@example.org>',
};

describe('loadConfig', () => {
  it('has working defaults for a fresh machine', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      nodeEnv: 'development',
      accessTokenTtl: 300,
      s3: undefined,
    });
    expect(config.dataDir).toBe(path.resolve('.islet'));
  });

  it.each([
    [{ PORT: 'eighty' }, /PORT must be a whole number/],
    [{ ACCESS_TOKEN_TTL: '3600' }, /ACCESS_TOKEN_TTL must be between 30 and 600/],
    [{ NODE_ENV: 'staging' }, /NODE_ENV must be one of/],
    [{ DATABASE_URL: 'not a url' }, /DATABASE_URL must be an absolute URL/],
    [{ S3_ENDPOINT: 'http://s3.local' }, /S3_ACCESS_KEY, S3_SECRET_KEY, S3_BUCKET must be set/],
    [{ SERVER_SECRET: 'short' }, /SERVER_SECRET must be at least 16/],
    [{ LEGACY_REALM: 'tidepool' }, /LEGACY_REALM must be one of dev1/],
    [{ TRUST_PROXY: 'maybe' }, /TRUST_PROXY must be true, false or a number of proxy hops/],
    [{ TRUST_PROXY: '-1' }, /TRUST_PROXY must be true, false or a number of proxy hops/],
    [{ TRUST_PROXY: '11' }, /TRUST_PROXY must be true, false or a number of proxy hops/],
    [{ METRICS_TOKEN: 'too-short' }, /METRICS_TOKEN must be at least 16/],
  ])('refuses %p naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('reads the direct URL and the replicas beside a primary, none by default', () => {
    const primary = { DATABASE_URL: 'postgres://pooler:6432/islet' };
    expect(loadConfig(primary)).toMatchObject({
      databaseDirectUrl: undefined,
      databaseReplicaUrls: [],
      replicaMaxLagMs: 1000,
    });
    const replicated = loadConfig({
      ...primary,
      DATABASE_DIRECT_URL: 'postgres://primary:5432/islet',
      DATABASE_REPLICA_URLS: 'postgres://replica-a:5432/islet, postgres://replica-b:5432/islet',
      REPLICA_MAX_LAG_MS: '250',
    });
    expect(replicated.databaseDirectUrl).toBe('postgres://primary:5432/islet');
    expect(replicated.databaseReplicaUrls).toEqual([
      'postgres://replica-a:5432/islet',
      'postgres://replica-b:5432/islet',
    ]);
    expect(replicated.replicaMaxLagMs).toBe(250);
    expect(() => loadConfig({ DATABASE_REPLICA_URLS: 'postgres://replica-a:5432/islet' })).toThrow(
      /DATABASE_REPLICA_URLS is set, so DATABASE_URL \(the primary\) must be set too/,
    );
    expect(() => loadConfig({ DATABASE_DIRECT_URL: 'postgres://primary:5432/islet' })).toThrow(
      /DATABASE_DIRECT_URL is set, so DATABASE_URL/,
    );
    expect(() => loadConfig({ ...primary, DATABASE_REPLICA_URLS: 'postgres://a:5432/islet,,' })).toThrow(
      /DATABASE_REPLICA_URLS has an empty entry at position 2/,
    );
    expect(() => loadConfig({ ...primary, DATABASE_REPLICA_URLS: 'replica-a' })).toThrow(
      /DATABASE_REPLICA_URLS must be an absolute URL, got "replica-a"/,
    );
  });

  it('reads S3_SESSION_TOKEN beside the S3 keys, unset by default', () => {
    const s3 = { S3_ENDPOINT: 'http://s3.local', S3_ACCESS_KEY: 'ASIA1', S3_SECRET_KEY: 'x', S3_BUCKET: 'b-1' };
    expect(loadConfig(s3).s3?.sessionToken).toBeUndefined();
    expect(loadConfig({ ...s3, S3_SESSION_TOKEN: ' FQoG+token= ' }).s3?.sessionToken).toBe('FQoG+token=');
  });

  it('reads CONTENT_SIZE_LIMIT_BYTES, 100 MiB by default, between 1 MiB and 5 GiB', () => {
    expect(loadConfig({}).contentSizeLimitBytes).toBe(100 * 1024 * 1024);
    expect(loadConfig({ CONTENT_SIZE_LIMIT_BYTES: '1048576' }).contentSizeLimitBytes).toBe(1024 * 1024);
    expect(() => loadConfig({ CONTENT_SIZE_LIMIT_BYTES: '1048575' })).toThrow(
      /CONTENT_SIZE_LIMIT_BYTES must be between 1048576 and 5368709120/,
    );
    expect(() => loadConfig({ CONTENT_SIZE_LIMIT_BYTES: '100MiB' })).toThrow(
      /CONTENT_SIZE_LIMIT_BYTES must be a whole/,
    );
  });

  it('hashes passwords at OWASP’s baseline by default, and in production never below it', () => {
    const baseline = { memoryKib: 19456, passes: 2 };
    expect(loadConfig({}).passwordHashCost).toEqual(baseline);
    expect(loadConfig(PRODUCTION).passwordHashCost).toEqual(baseline);
    const cheap = { PASSWORD_HASH_MEMORY_KIB: '1024', PASSWORD_HASH_PASSES: '1' };
    expect(loadConfig(cheap).passwordHashCost).toEqual({ memoryKib: 1024, passes: 1 });
    expect(() => loadConfig({ ...PRODUCTION, ...cheap })).toThrow(/PASSWORD_HASH_MEMORY_KIB must be between 19456/);
    expect(() => loadConfig({ ...PRODUCTION, PASSWORD_HASH_PASSES: '1' })).toThrow(
      /PASSWORD_HASH_PASSES must be between 2/,
    );
    expect(loadConfig({ ...PRODUCTION, PASSWORD_HASH_MEMORY_KIB: '65536' }).passwordHashCost.memoryKib).toBe(65536);
  });

  it('keeps 16 MiB of clinic copy texts by default, CLINIC_COPY_CACHE_MB otherwise, never none', () => {
    expect(loadConfig({}).clinicCopyCacheBytes).toBe(16 * 1024 * 1024);
    expect(loadConfig({ CLINIC_COPY_CACHE_MB: '64' }).clinicCopyCacheBytes).toBe(64 * 1024 * 1024);
    expect(() => loadConfig({ CLINIC_COPY_CACHE_MB: '0' })).toThrow(/CLINIC_COPY_CACHE_MB must be between 1/);
  });

  it('reads METRICS_TOKEN, unset by default', () => {
    expect(loadConfig({}).metricsToken).toBeUndefined();
    expect(loadConfig({ METRICS_TOKEN: ' scrape-token-0123456789 ' }).metricsToken).toBe('scrape-token-0123456789');
  });

  it('serves the GraphQL playground outside production unless GRAPHQL_PLAYGROUND says otherwise', () => {
    expect(loadConfig({}).graphqlPlayground).toBe(true);
    expect(loadConfig(PRODUCTION).graphqlPlayground).toBe(false);
    expect(loadConfig({ GRAPHQL_PLAYGROUND: 'false' }).graphqlPlayground).toBe(false);
    expect(loadConfig({ ...PRODUCTION, GRAPHQL_PLAYGROUND: 'true' }).graphqlPlayground).toBe(true);
    expect(() => loadConfig({ GRAPHQL_PLAYGROUND: 'sometimes' })).toThrow(/GRAPHQL_PLAYGROUND must be true or false/);
  });

  it('trusts exactly the proxy hops TRUST_PROXY names: none, one for true, or a number', () => {
    expect(loadConfig({}).trustProxy).toBe(0);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(0);
    expect(loadConfig({ TRUST_PROXY: '0' }).trustProxy).toBe(0);
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: 'TRUE' }).trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: '3' }).trustProxy).toBe(3);
  });

  it('sends mail through SMTP_URL, and requires it and MAIL_FROM in production', () => {
    expect(loadConfig({})).toMatchObject({ smtpUrl: undefined, mailFrom: 'Islet <no-reply@localhost>' });
    expect(loadConfig(PRODUCTION)).toMatchObject({
      smtpUrl: 'smtp://mail.example.org',
      mailFrom: PRODUCTION.MAIL_FROM,
    });
    expect(() => loadConfig({ ...PRODUCTION, SMTP_URL: '' })).toThrow(/SMTP_URL must be set in production/);
    expect(() => loadConfig({ ...PRODUCTION, MAIL_FROM: undefined })).toThrow(/MAIL_FROM must be set in production/);
    expect(() => loadConfig({ SMTP_URL: 'https://mail.example.org' })).toThrow(
      /SMTP_URL must be an smtp:\/\/ or smtps:\/\//,
    );
    expect(() => loadConfig({ MAIL_FROM: 'Islet' })).toThrow(/MAIL_FROM must be an address/);
  });

  it('never creates the development client in production', () => {
    expect(loadConfig({ ...PRODUCTION, DEV_CLIENT_SECRET: 'x'.repeat(20) }).devClientSecret).toBeUndefined();
  });

  it('is documented: every variable it reads has a row in docs/configuration.md', () => {
    const source = fs.readFileSync(path.join(__dirname, 'config.ts'), 'utf8');
    const readme = fs.readFileSync(path.join(__dirname, '..', 'docs', 'configuration.md'), 'utf8');
    const variables = [...source.matchAll(/\(env, '([A-Z0-9_]+)'/g)].map((match) => match[1]);
    expect(variables.length).toBeGreaterThan(15);
    expect(variables.filter((name) => !readme.includes(`\`${name}\``))).toEqual([]);
  });
});
