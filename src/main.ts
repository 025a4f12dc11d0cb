import 'reflect-metadata';
import { ConfigError, loadConfig, type Config } from './config';
import { createLogger, type Logger } from './infra/logger';
import { secretsFile } from './infra/secrets';
import { outboxFolder } from './infra/mail/mailer';
import { DEV_CLIENT_ID } from './auth/oidc/clients';
import { startService, type RunningService } from './service';

/**
 * What an operator needs at start: where the service listens and the development client.
 * Generated secrets are shown once, on the start that generated them; later starts say where
 * they are kept, so logs collected from every start do not carry them.
 */
export function startupBanner(config: Config, service: Pick<RunningService, 'url' | 'database' | 'secrets'>): string[] {
  const { url, database, secrets } = service;
  const kept = secretsFile(config.dataDir);
  const lines = [`Islet listening on ${url} (GraphQL at ${url}/graphql, database: ${database.source})`];
  if (secrets.devClientSecret) {
    const secret = secrets.generated.includes('devClientSecret')
      ? `client_secret=${secrets.devClientSecret} (generated now, kept in ${kept})`
      : config.devClientSecret
        ? 'client_secret from DEV_CLIENT_SECRET'
        : `client_secret kept in ${kept}`;
    lines.push(`Development client in every realm: client_id=${DEV_CLIENT_ID} ${secret}`);
  }
  if (!config.smtpUrl) {
    lines.push(`Mail is not sent (no SMTP_URL): each is written to ${outboxFolder(config.dataDir)}, its links logged`);
  }
  if (secrets.generated.includes('serverSecret')) {
    lines.push(`Generated SERVER_SECRET (kept in ${kept}): ${secrets.serverSecret}`);
  }
  return lines;
}

/**
 * The banner, through the logger: stdout then has one format (LOG_FORMAT) throughout, which a log
 * collector can read. It is written whatever LOG_LEVEL is, as a generated secret is shown only once.
 */
export function announceStart(logger: Logger, ...banner: Parameters<typeof startupBanner>): void {
  const announcer = logger.child({}, { level: 'info' });
  for (const line of startupBanner(...banner)) announcer.info(line);
}

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel, { buffered: true, format: config.logFormat });
  const service = await startService(config, logger);
  announceStart(logger, config, service);

  const stop = (signal: string) => {
    logger.info({ signal }, 'shutting down');
    service.close().then(
      () => logger.flush(() => process.exit(0)),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        logger.flush(() => process.exit(1));
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

// Started as a program; imported (by tests, for the banner) it starts nothing.
if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(
      `${error instanceof ConfigError ? `configuration error: ${error.message}` : ((error as Error)?.stack ?? error)}\n`,
    );
    process.exit(1);
  });
}
