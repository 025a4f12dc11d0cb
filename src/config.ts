import path from 'node:path';
import { CONTENT_SIZE_LIMIT } from './kernel/content';
import type { ObjectQuotas } from './kernel/quota';
import type { LogFormat } from './infra/log-format';

/**
 * The only reader of process.env. Every setting is parsed and validated here once, so a
 * misconfigured deployment fails at start-up with a message naming the variable instead of
 * misbehaving later. docs/configuration.md documents each variable (src/config.test.ts checks every one has a row).
 */

export const REALMS = ['dev1', 'qa1', 'qa2', 'qa3', 'qa4', 'qa5', 'integration', 'production'] as const;
export type Realm = (typeof REALMS)[number];

export interface S3Settings {
  endpoint: string;
  accessKey: string;
  /** With temporary credentials (STS): sent as `x-amz-security-token` on every request. */
  sessionToken?: string;
  secretKey: string;
  bucket: string;
  region: string;
}

export interface Config {
  nodeEnv: 'development' | 'test' | 'production';
  host: string;
  port: number;
  /** External base URL (scheme, host, port); issuers are `${publicUrl}/realms/{realm}`. */
  publicUrl: string | undefined;
  /**
   * Reverse-proxy hops whose `X-Forwarded-*` headers are trusted (0: none). The client address
   * is the one the farthest trusted hop appended to `X-Forwarded-For`, never an entry left of it.
   */
  trustProxy: number;
  databaseUrl: string | undefined;
  databasePoolSize: number;
  /**
   * A connection straight to the primary, for what needs a session of its own (LISTEN, the
   * migration lock, named prepared statements) when DATABASE_URL goes through a transaction-mode
   * pooler; unset: DATABASE_URL.
   */
  databaseDirectUrl: string | undefined;
  /** Streaming replicas that serve the reads which tolerate a little staleness (none: the primary serves all). */
  databaseReplicaUrls: string[];
  /** A replica further behind the primary than this is skipped until it catches up. */
  replicaMaxLagMs: number;
  dataDir: string;
  embeddedPostgresPort: number;
  s3: S3Settings | undefined;
  serverSecret: string | undefined;
  devClientSecret: string | undefined;
  legacyRealm: Realm;
  accessTokenTtl: number;
  refreshTokenTtl: number;
  /** Longest a login session (and so its refresh-token chain) lives, however active. */
  sessionMaxTtl: number;
  oidcClientsFile: string | undefined;
  identityProvidersFile: string | undefined;
  /** Token-endpoint requests per second allowed from one address (0: no limit). */
  tokenRateLimit: number;
  /** Password hashes per second admitted in all, one source half of them; unset: measured at start-up. */
  passwordChecksPerSecond: number | undefined;
  /**
   * argon2id's memory (KiB) and passes for new password hashes; a stored hash keeps the cost it
   * was made with. Production may only raise OWASP's baseline (19 MiB, 2 passes).
   */
  passwordHashCost: { memoryKib: number; passes: number };
  /** libuv's threadpool size (UV_THREADPOOL_SIZE), which file reads and password hashing share. */
  threadpoolSize: number;
  /** Send X-Sql-Statements on every response (per-request query count, for tests and benchmarks). */
  sqlStatementHeader: boolean;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Every line on stdout in one format (LOG_FORMAT): `json` (default in production) or `pretty`. */
  logFormat: LogFormat;
  shutdownTimeoutMs: number;
  /** The longest a blob or device-log upload may take; unfinished uploads are swept after it. */
  uploadTimeoutSeconds: number;
  /** The most bytes one blob's or device log's content may hold; one more is refused (413). */
  contentSizeLimitBytes: number;
  /** Bearer token `GET /metrics` requires; without it, /metrics is served outside production only. */
  metricsToken: string | undefined;
  /** Serve /metrics on this port (0: any free one) instead of the public one. */
  metricsPort: number | undefined;
  /** Serve the GraphiQL playground at `GET /graphql` to browsers, with its public sign-in client. */
  graphqlPlayground: boolean;
  /** How long access log entries are kept, in days; older ones are swept. */
  accessLogRetentionDays: number;
  /** Record the access log; off only to measure what recording costs (test/bench), never in service. */
  accessLogRecording: boolean;
  /** The most objects of each kind one account may hold (kernel/quota); a creation past it is refused (403). */
  objectQuotas: ObjectQuotas;
  /** Uploads into one account that may be in flight at once on one instance; more are refused (429). */
  uploadsPerAccount: number;
  /** Data exports (downloads of a whole history) one caller may have streaming at once on one instance; more are refused (429). */
  exportsPerCaller: number;
  /** AGPs each instance remembers, answered again while their readings are unchanged (0: none). */
  rememberedAgps: number;
  /** Bytes of summaries' clinic copy texts each instance keeps for each database, read again by the patient list without being sent. */
  clinicCopyCacheBytes: number;
  /**
   * Glucose readings one account may store per hour of data (UTC, counting what is stored and
   * counts or will on its dataset's close); an upload that would pass it is refused whole.
   */
  glucoseReadingsPerHour: number;
  /** Readings one turn of the summary updater reads; a larger rebuild goes on in later turns. */
  summaryReadingsPerTurn: number;
  /** Where mail leaves (smtp:// or smtps://); unset outside production: written to DATA_DIR/outbox instead. */
  smtpUrl: string | undefined;
  /** The From of every mail. */
  mailFrom: string;
  /** Mails one recipient address may be sent per hour; one more is refused (429). */
  mailPerAddressPerHour: number;
  /** Mails the requests of one source address may cause per hour; one more is refused (429). */
  mailPerSourcePerHour: number;
  /** The wait after a first failed attempt to send a mail; it doubles with each further failure. */
  mailRetryMs: number;
  /** The longest wait between two attempts to send a mail. */
  mailRetryMaxMs: number;
  /** How long a mailed confirmation key stays usable, in seconds, by what it confirms. */
  confirmationLifetimes: { signup: number; passwordReset: number; invitation: number };
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function text(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = text(env, name) ?? fallback;
  if (!allowed.includes(raw as T)) throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
  return raw as T;
}

function flag(env: Env, name: string): boolean {
  const raw = text(env, name);
  if (raw === undefined) return false;
  if (['1', 'true', 'yes'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no'].includes(raw.toLowerCase())) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

/** `false` (no proxy), `true` (one proxy hop) or the number of hops. */
function proxyHops(env: Env, name: string): number {
  const raw = text(env, name)?.toLowerCase();
  if (raw === undefined || ['0', 'false', 'no'].includes(raw)) return 0;
  if (['true', 'yes'].includes(raw)) return 1;
  if (/^\d+$/.test(raw) && Number(raw) <= 10) return Number(raw);
  throw new ConfigError(`${name} must be true, false or a number of proxy hops (1 to 10), got "${raw}"`);
}

function url(env: Env, name: string): string | undefined {
  const raw = text(env, name);
  if (raw === undefined) return undefined;
  try {
    return new URL(raw).toString().replace(/\/$/, '');
  } catch {
    throw new ConfigError(`${name} must be an absolute URL, got "${raw}"`);
  }
}

function urls(env: Env, name: string): string[] {
  const raw = text(env, name);
  if (raw === undefined) return [];
  return raw.split(',').map((part, index) => {
    const value = url({ [name]: part }, name);
    if (value === undefined) throw new ConfigError(`${name} has an empty entry at position ${index + 1}`);
    return value;
  });
}

/** Replicas and a direct URL only mean something beside a primary named by DATABASE_URL. */
function besidePrimary<T extends string | string[] | undefined>(env: Env, name: string, value: T): T {
  const given = Array.isArray(value) ? value.length > 0 : value !== undefined;
  if (given && url(env, 'DATABASE_URL') === undefined)
    throw new ConfigError(`${name} is set, so DATABASE_URL (the primary) must be set too`);
  return value;
}

function s3Settings(env: Env): S3Settings | undefined {
  const endpoint = url(env, 'S3_ENDPOINT');
  if (!endpoint) return undefined;
  const missing = ['S3_ACCESS_KEY', 'S3_SECRET_KEY', 'S3_BUCKET'].filter((name) => !text(env, name));
  if (missing.length) throw new ConfigError(`S3_ENDPOINT is set, so ${missing.join(', ')} must be set too`);
  return {
    endpoint,
    accessKey: text(env, 'S3_ACCESS_KEY')!,
    sessionToken: text(env, 'S3_SESSION_TOKEN'),
    secretKey: text(env, 'S3_SECRET_KEY')!,
    bucket: text(env, 'S3_BUCKET')!,
    region: text(env, 'S3_REGION') ?? 'us-east-1',
  };
}

function smtpUrl(env: Env, production: boolean): string | undefined {
  const value = url(env, 'SMTP_URL');
  if (value === undefined && production)
    throw new ConfigError(
      'SMTP_URL must be set in production (NODE_ENV=production): mail leaves only through SMTP there',
    );
  if (value !== undefined && !/^smtps?:/.test(value))
    throw new ConfigError(`SMTP_URL must be an smtp:// or smtps:// URL, got "${value.split(':')[0]}:"`);
  return value;
}

function mailFrom(env: Env, production: boolean): string {
  const value = text(env, 'MAIL_FROM');
  if (value === undefined && production)
    throw new ConfigError(
      'MAIL_FROM must be set in production (NODE_ENV=production), e.g. "Islet <no-reply@example.org>"',
    );
  if (value !== undefined && !value.includes('@'))
    throw new ConfigError(
      `MAIL_FROM must be an address, optionally with a name ("Islet <no-reply@example.org>"), got "${value}"`,
    );
  return value ?? 'Islet <no-reply@localhost>';
}

function secret(env: Env, name: string): string | undefined {
  const value = text(env, name);
  if (value !== undefined && value.length < 16) throw new ConfigError(`${name} must be at least 16 characters long`);
  return value;
}

/** OWASP's baseline for argon2id: 19 MiB and two passes. */
const PASSWORD_HASH_BASELINE = { memoryKib: 19_456, passes: 2 };

/**
 * Outside production the cost may go down to argon2's least (the test suites hash thousands of
 * passwords, each about 50 ms at the baseline); in production only up.
 */
function passwordHashCost(env: Env, production: boolean): Config['passwordHashCost'] {
  const least = production ? PASSWORD_HASH_BASELINE : { memoryKib: 8, passes: 1 };
  return {
    memoryKib: integer(
      env,
      'PASSWORD_HASH_MEMORY_KIB',
      PASSWORD_HASH_BASELINE.memoryKib,
      least.memoryKib,
      4 * 1024 ** 2,
    ),
    passes: integer(env, 'PASSWORD_HASH_PASSES', PASSWORD_HASH_BASELINE.passes, least.passes, 100),
  };
}

export function loadConfig(env: Env = process.env): Config {
  const nodeEnv = oneOf(env, 'NODE_ENV', ['development', 'test', 'production'], 'development');
  const production = nodeEnv === 'production';
  const accessTokenTtl = integer(env, 'ACCESS_TOKEN_TTL', 300, 30, 600);
  return {
    nodeEnv,
    host: text(env, 'HOST') ?? (production ? '0.0.0.0' : '127.0.0.1'),
    port: integer(env, 'PORT', 8080, 0, 65535),
    publicUrl: url(env, 'PUBLIC_URL'),
    trustProxy: proxyHops(env, 'TRUST_PROXY'),
    databaseUrl: url(env, 'DATABASE_URL'),
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 10, 1, 200),
    databaseDirectUrl: besidePrimary(env, 'DATABASE_DIRECT_URL', url(env, 'DATABASE_DIRECT_URL')),
    databaseReplicaUrls: besidePrimary(env, 'DATABASE_REPLICA_URLS', urls(env, 'DATABASE_REPLICA_URLS')),
    // Patient lists, TIDE and AGPs a second old are as good as now; older would show a visit's upload late.
    replicaMaxLagMs: integer(env, 'REPLICA_MAX_LAG_MS', 1_000, 0, 3_600_000),
    dataDir: path.resolve(text(env, 'DATA_DIR') ?? '.islet'),
    embeddedPostgresPort: integer(env, 'EMBEDDED_POSTGRES_PORT', 54329, 1, 65535),
    s3: s3Settings(env),
    serverSecret: secret(env, 'SERVER_SECRET'),
    devClientSecret: production ? undefined : secret(env, 'DEV_CLIENT_SECRET'),
    legacyRealm: oneOf(env, 'LEGACY_REALM', REALMS, production ? 'production' : 'dev1'),
    accessTokenTtl,
    refreshTokenTtl: integer(env, 'REFRESH_TOKEN_TTL', 1800, accessTokenTtl, 30 * 24 * 3600),
    sessionMaxTtl: integer(env, 'SESSION_MAX_TTL', 10 * 3600, accessTokenTtl, 90 * 24 * 3600),
    oidcClientsFile: text(env, 'OIDC_CLIENTS_FILE'),
    identityProvidersFile: text(env, 'IDENTITY_PROVIDERS_FILE'),
    tokenRateLimit: integer(env, 'TOKEN_RATE_LIMIT', 20, 0, 100_000),
    passwordChecksPerSecond:
      text(env, 'PASSWORD_CHECKS_PER_SECOND') === undefined
        ? undefined
        : integer(env, 'PASSWORD_CHECKS_PER_SECOND', 0, 1, 100_000),
    passwordHashCost: passwordHashCost(env, production),
    threadpoolSize: integer(env, 'UV_THREADPOOL_SIZE', 4, 1, 1024),
    sqlStatementHeader:
      text(env, 'SQL_STATEMENT_HEADER') === undefined ? !production : flag(env, 'SQL_STATEMENT_HEADER'),
    logLevel: oneOf(env, 'LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
    logFormat: oneOf(env, 'LOG_FORMAT', ['json', 'pretty'], production ? 'json' : 'pretty'),
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    uploadTimeoutSeconds: integer(env, 'UPLOAD_TIMEOUT_SECONDS', 3600, 1, 24 * 3600),
    // Tidepool's 100 MiB; lowered by tests to cross the limit without moving 100 MiB. At least one
    // 1 MiB device-log entry fits; at most what one S3 PUT may hold.
    contentSizeLimitBytes: integer(env, 'CONTENT_SIZE_LIMIT_BYTES', CONTENT_SIZE_LIMIT, 1024 * 1024, 5 * 1024 ** 3),
    metricsToken: secret(env, 'METRICS_TOKEN'),
    metricsPort: text(env, 'METRICS_PORT') === undefined ? undefined : integer(env, 'METRICS_PORT', 0, 0, 65_535),
    graphqlPlayground: text(env, 'GRAPHQL_PLAYGROUND') === undefined ? !production : flag(env, 'GRAPHQL_PLAYGROUND'),
    // Six years, the longest record-keeping period health-data regulations (HIPAA) ask of audit trails.
    accessLogRetentionDays: integer(env, 'ACCESS_LOG_RETENTION_DAYS', 6 * 365 + 2, 1, 100 * 366),
    accessLogRecording: text(env, 'ACCESS_LOG_RECORDING') === undefined || flag(env, 'ACCESS_LOG_RECORDING'),
    // Far above what a person's devices make in years (an uploader opens a dataset a day), and
    // low enough that every list of one account stays cheap to page.
    objectQuotas: {
      blobs: integer(env, 'BLOB_QUOTA', 10_000, 1, 10_000_000),
      deviceLogs: integer(env, 'DEVICE_LOG_QUOTA', 10_000, 1, 10_000_000),
      datasets: integer(env, 'DATASET_QUOTA', 10_000, 1, 10_000_000),
      // Clinic memberships: a clinic is created by a user who becomes its admin.
      clinics: integer(env, 'CLINIC_QUOTA', 1_000, 1, 1_000_000),
    },
    // An uploader sends one file at a time and an app a few; each upload holds a stream and a descriptor.
    uploadsPerAccount: integer(env, 'UPLOADS_PER_ACCOUNT', 16, 1, 10_000),
    // An export reads a whole history and holds a stream for as long as its client reads; people download one or two.
    exportsPerCaller: integer(env, 'EXPORTS_PER_CALLER', 2, 1, 1_000),
    // A clinic's dashboard reading its patients' AGPs over and over; about 10 KB each.
    rememberedAgps: integer(env, 'AGP_CACHE_ENTRIES', 2_000, 0, 1_000_000),
    // A page of 50 patients holds about 600 kB of them; 16 MiB keep about 28 pages.
    clinicCopyCacheBytes: integer(env, 'CLINIC_COPY_CACHE_MB', 16, 1, 4_096) * 1024 * 1024,
    // Four times the 60 a summary counts per hour (docs/summaries.md, Hourly buckets): room for
    // re-uploads, none for floods.
    glucoseReadingsPerHour: integer(env, 'GLUCOSE_READINGS_PER_HOUR', 240, 61, 100_000),
    // About a quarter of a second of updater work; 60 days of 5-minute CGM data fit in one turn.
    summaryReadingsPerTurn: integer(env, 'SUMMARY_READINGS_PER_TURN', 20_000, 100, 10_000_000),
    smtpUrl: smtpUrl(env, production),
    mailFrom: mailFrom(env, production),
    // A person asking again a few times; no more, so resend and forgot cannot flood a mailbox.
    mailPerAddressPerHour: integer(env, 'MAIL_PER_ADDRESS_PER_HOUR', 5, 1, 1_000),
    // A clinic inviting its staff from one office address; no more, so one client cannot mail the world.
    mailPerSourcePerHour: integer(env, 'MAIL_PER_SOURCE_PER_HOUR', 20, 1, 100_000),
    mailRetryMs: integer(env, 'MAIL_RETRY_MS', 10_000, 10, 3_600_000),
    mailRetryMaxMs: integer(env, 'MAIL_RETRY_MAX_MS', 3_600_000, 10, 24 * 3_600_000),
    // A sign-up or an invitation waits for someone to read their mail (a week, as Tidepool's
    // invitations); a password reset opens the account, so its key lives an hour.
    confirmationLifetimes: {
      signup: integer(env, 'SIGNUP_CONFIRMATION_TTL', 7 * 24 * 3600, 1, 90 * 24 * 3600),
      passwordReset: integer(env, 'PASSWORD_RESET_TTL', 3600, 1, 24 * 3600),
      invitation: integer(env, 'INVITATION_TTL', 7 * 24 * 3600, 1, 90 * 24 * 3600),
    },
  };
}
