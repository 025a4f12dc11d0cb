import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { getOperationAST, parse, type GraphQLSchema } from 'graphql';
import { errorBody, HTTP_STATUS } from './http/http-errors';
import { restCompatRouter, sendAppError } from '../rest-compat/router';
import { contentRoutes, restRoutes, serviceRoutes } from '../rest-compat/routes';
import type { RestRoute } from '../rest-compat/route';
import { edgeErrorBody } from './graphql/errors';
import { graphqlMultipart, isMultipart } from './graphql/multipart';
import { sweepExpired } from './auth/oidc/postgres-adapter';
import type { Config } from './config';
import { schemaFor } from './graphql/resolvers';
import { createServices } from './services';
import type { ServiceDependencies } from './composition/foundation';
import type { Services } from './service-catalog';
import { asAppError } from './infra/failures';
import { realmRoutes } from './auth/endpoints';
import { realmUnavailable } from './auth/endpoints/unavailable';
import { realmsRouter } from './auth/endpoints/realm-router';
import { asksOnlyFor, graphqlHttpHandler, onlyMutationOf } from './graphql/http';
import { CREDENTIAL_FREE_MUTATIONS } from './auth/sessions.resolver';
import { createApolloServer } from './graphql/server';
import { graphqlWebSocket, type GraphqlWebSocket } from './graphql/websocket';
import { playgroundRouter } from './playground/page';
import { authenticate } from './http/authenticate';
import { apiCors } from './http/cors';
import { chain } from './http/chain';
import { healthRouter } from './http/health';
import { frontDoorRouter } from './http/front-door';
import { uploadInfoRouter } from './http/upload-info';
import { apiDocsRouter } from './http/api-docs';
import { readsOnly } from './http/reads-only';
import { API_INFO, serviceEndpoints } from '../rest-compat/openapi/service-endpoints';
import { DOWNLOAD_EDGE_ERRORS, openApiDocument, REST_EDGE_ERRORS } from '../rest-compat/openapi/document';
import { jsonBody } from './http/json-body';
import { requestDeadline, uploadDeadline, uploadRequestTimeoutMs } from './http/request-deadline';
import { metricsEndpoint } from './http/metrics';
import { securityHeaders } from './http/security-headers';
import { protectAccountChanges } from './auth/account-protection';
import { DEV_CLIENT_ID } from './auth/oidc/clients';
import { forgetOverriddenSecret } from './infra/secrets';
import { refuseBadGraphQLInput, refuseUnreadableRequests } from './http/request-guard';
import { OAuthError } from './auth/oauth-error';
import { sendOAuthError } from './auth/endpoints/oauth-errors';
import { requestContext, requestedPath } from './http/request-context';
import type { Orm } from './infra/database/orm';
import type { Logger } from './infra/logger';
import type { ShutdownStep } from './infra/shutdown';
import type { AppError } from './kernel/errors';
import type { Scope } from './kernel/scope';
import type { ApolloServer } from '@apollo/server';

/** What the process hands the app: the services' dependencies (src/composition/foundation.ts). */
export type AppDependencies = ServiceDependencies;

export interface IsletApp {
  handler: express.Express;
  schema: GraphQLSchema;
  /** GraphQL subscriptions: the HTTP server hands it upgrade requests. */
  websocket: GraphqlWebSocket;
  /** Stops background work, each part as a step of `step`. */
  close(step: ShutdownStep): Promise<void>;
}

const SWEEP_INTERVAL_MS = 10 * 60 * 1000;

/** Unfinished uploads are looked at a few times per upload timeout, at most every minute. */
const contentSweepInterval = (config: Config) => Math.min(60_000, (config.uploadTimeoutSeconds * 1000) / 4);

/** Refusals at the edge of /graphql (body, token, NUL, lists), in the same codes as resolver errors. */
function graphqlError(error: AppError, res: Response): void {
  res.status(HTTP_STATUS[error.code]).json(edgeErrorBody(error));
}

interface Mounting {
  config: Config;
  logger: Logger;
  orm: Orm;
  services: Services;
  uploadTime: RequestHandler;
}

/** `/graphql`: the playground for browsers, then bodies (JSON or multipart), credentials and Apollo. */
function mountGraphql(
  app: express.Express,
  {
    config,
    logger,
    orm,
    services,
    apollo,
    baseUrl,
    uploadTime,
  }: Mounting & { apollo: ApolloServer<Scope>; baseUrl: string },
): void {
  const multipart = graphqlMultipart(graphqlError, config.contentSizeLimitBytes);
  const graphqlJson = jsonBody(graphqlError);
  const graphqlBody: RequestHandler = (req, res, next) =>
    isMultipart(req) ? uploadTime(req, res, () => multipart(req, res, next)) : graphqlJson(req, res, next);
  const graphqlAuth = authenticate(services.authenticator, orm, logger, graphqlError, services.accessSink, {
    lenient: asksOnlyFor(CREDENTIAL_FREE_MUTATIONS),
  });
  // GraphiQL for browsers (GET with Accept: text/html); without it, Apollo answers them as before.
  if (config.graphqlPlayground) {
    const playground = playgroundRouter({ baseUrl, defaultRealm: config.legacyRealm });
    // Queries are POSTs: they skip the page's router altogether.
    app.use('/graphql', (req, res, next) => {
      if (req.method === 'GET' || req.method === 'HEAD') return playground(req, res, next);
      next();
    });
  }
  app.use(
    '/graphql',
    chain(apiCors, graphqlBody, graphqlAuth, refuseBadGraphQLInput(graphqlError), graphqlHttpHandler(apollo)),
  );
}

/** The legacy REST table and downloads, with the OpenAPI description generated from the same rows. */
function mountRest(
  app: express.Express,
  { config, logger, orm, services, schema, uploadTime }: Mounting & { schema: GraphQLSchema },
): void {
  const restError = (error: AppError, res: Response) => sendAppError(res, error);
  const parseJson = jsonBody(restError);
  const strict = authenticate(services.authenticator, orm, logger, restError, services.accessSink);
  const lenient = authenticate(services.authenticator, orm, logger, restError, services.accessSink, { lenient: true });
  app.use(apiCors);
  // Routes that run only credential-free mutations treat unusable credentials as none, as /graphql does.
  const routes = restRoutes.map((route) => ({
    ...route,
    lenientCredentials: onlyMutationOf(getOperationAST(parse(route.document)), CREDENTIAL_FREE_MUTATIONS),
  }));
  const edgeFor = (route: RestRoute) => [
    ...(route.body === 'binary' ? [uploadTime] : [parseJson]),
    route.lenientCredentials ? lenient : strict,
  ];
  const downloads = contentRoutes(services);
  // The OpenAPI description, generated at start-up from the rows served below, so it cannot drift from them.
  app.use(
    readsOnly(
      apiDocsRouter(
        openApiDocument({
          schema,
          info: API_INFO,
          routes: [
            ...routes.map((route) => ({ ...route, edgeErrors: REST_EDGE_ERRORS })),
            ...serviceRoutes.map((route) => ({ ...route, edgeErrors: REST_EDGE_ERRORS })),
            ...downloads.map((route) => ({
              ...route,
              method: 'get' as const,
              status: 200,
              edgeErrors: DOWNLOAD_EDGE_ERRORS,
            })),
            ...serviceEndpoints({ metricsHere: config.metricsPort === undefined }),
          ],
        }),
      ),
    ),
  );
  const direct = { routes: serviceRoutes, edge: [parseJson, strict] };
  app.use(restCompatRouter(schema, routes, edgeFor, { routes: downloads, edge: [strict] }, direct, services));
}

/**
 * The sweeps every instance runs: expired OIDC records, and unfinished uploads (once at start,
 * then a few times per upload timeout). `stop` ends them and waits for a sweep in progress, so
 * closing never closes the pool under it.
 */
function startSweeps(services: Services, orm: Orm, logger: Logger, config: Config) {
  const sweeper = setInterval(() => {
    sweepExpired(orm).catch((error: unknown) => logger.warn({ err: error }, 'sweeping expired OIDC records failed'));
  }, SWEEP_INTERVAL_MS).unref();
  // The sweep in progress, so that closing waits for it instead of closing the pool under it
  // (a service stopped just after starting left the pool waiting on the start-up sweep's connection).
  let contentSweep: Promise<unknown> = Promise.resolve();
  const sweepContent = () =>
    (contentSweep = services.contents
      .sweep()
      .then((settled) => settled && logger.info({ settled }, 'settled unfinished uploads and removals'))
      .catch((error: unknown) => logger.warn({ err: error }, 'sweeping unfinished uploads failed')));
  void sweepContent();
  const contentSweeper = setInterval(sweepContent, contentSweepInterval(config)).unref();
  return {
    stop: () => {
      clearInterval(sweeper);
      clearInterval(contentSweeper);
      return contentSweep;
    },
  };
}

/** Composes the service: domain services, realms, GraphQL, the legacy REST table and health. */
export async function createApp({
  config,
  logger,
  orm,
  objectStore,
  baseUrl,
  secrets,
}: AppDependencies): Promise<IsletApp> {
  const services = await createServices({ config, logger, orm, objectStore, baseUrl, secrets });
  const { authenticator, realms } = services;
  protectAccountChanges(services);
  if (realms.keptStoredSecret(DEV_CLIENT_ID)) forgetOverriddenSecret(secrets, config.dataDir, 'devClientSecret');

  const schema = await schemaFor(services);
  const apollo = createApolloServer(schema, logger);
  await apollo.start();
  const websocket = graphqlWebSocket({ schema, authenticator, orm, logger, accessSink: services.accessSink });

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // A hop count (never `true`, which would trust a client-written leftmost X-Forwarded-For).
  app.set('trust proxy', config.trustProxy > 0 ? config.trustProxy : false);
  // The edge every request passes, as one layer (chain).
  app.use(
    chain(
      securityHeaders,
      requestContext(logger, config.sqlStatementHeader),
      // A body has Node's 300 s to arrive; upload routes extend it to their own timeout (uploadTime).
      requestDeadline(),
      // Paths that do not decode and NUL characters: 400 in the format of the API addressed.
      refuseUnreadableRequests((error, req, res) => {
        if (req.path.startsWith('/realms/'))
          return sendOAuthError(res, new OAuthError('invalid_request', error.message));
        if (req.path.startsWith('/graphql')) return graphqlError(error, res);
        sendAppError(res, error);
      }),
    ),
  );
  app.use(readsOnly(healthRouter(orm, objectStore)));
  app.use(readsOnly(frontDoorRouter({ baseUrl, version: API_INFO.version, playground: config.graphqlPlayground })));
  app.use(readsOnly(uploadInfoRouter()));
  // With METRICS_PORT the service's own port has no /metrics (src/service.ts serves it there).
  if (config.metricsPort === undefined) app.get('/metrics', metricsEndpoint(config));
  app.use('/realms', realmsRouter(realms, realmRoutes(services, config, logger, orm), realmUnavailable(logger)));

  const uploadTime = uploadDeadline(uploadRequestTimeoutMs(config.uploadTimeoutSeconds * 1000));
  mountGraphql(app, { config, logger, orm, services, apollo, baseUrl, uploadTime });
  mountRest(app, { config, logger, orm, services, schema, uploadTime });

  app.use((req: Request, res: Response) => {
    res.status(404).json(errorBody(404, `No route for ${req.method} ${req.path}`));
  });
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const appError = asAppError(error);
    if (appError && !res.headersSent) return sendAppError(res, appError);
    logger.error({ err: error, method: req.method, path: requestedPath(req) }, 'request failed');
    if (!res.headersSent) res.status(500).json(errorBody(500, 'Internal server error'));
  });

  const sweeps = startSweeps(services, orm, logger, config);

  return {
    handler: app,
    schema,
    websocket,
    close: async (step) => {
      await step('GraphQL subscriptions', () => websocket.close());
      await step('the sweep of unfinished uploads', () => sweeps.stop());
      await step('Apollo Server', () => apollo.stop());
      await services.close(step);
    },
  };
}
