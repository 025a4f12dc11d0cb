import 'reflect-metadata';
import { ConfigError, loadConfig } from './config';
import { createLogger } from './infra/logger';
import { DEV_CLIENT_ID } from './auth/oidc/clients';
import { startService } from './service';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel, { buffered: true });
  const service = await startService(config, logger);
  logger.info({ url: service.url, database: service.database.source }, 'islet is listening');
  const lines = [
    `Islet listening on ${service.url} (GraphQL at ${service.url}/graphql, database: ${service.database.source})`,
  ];
  if (service.secrets.devClientSecret) {
    lines.push(
      `Development client in every realm: client_id=${DEV_CLIENT_ID} client_secret=${service.secrets.devClientSecret}`,
    );
  }
  if (service.secrets.generated.includes('serverSecret')) {
    lines.push(`Generated SERVER_SECRET (kept in ${config.dataDir}/secrets.json): ${service.secrets.serverSecret}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);

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

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof ConfigError ? `configuration error: ${error.message}` : ((error as Error)?.stack ?? error)}\n`,
  );
  process.exit(1);
});
