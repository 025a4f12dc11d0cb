import type { EntityManager } from '@mikro-orm/postgresql';
import type { NextFunction, Request, Response } from 'express';
import type { Authenticator } from '../auth/authenticator';
import type { Orm } from '../infra/database/orm';
import { requestScope, type Logger } from '../infra/logger';
import { isAppError, type AppError } from '../kernel/errors';
import { AccessTrail, type AccessSink } from '../kernel/access-trail';
import { ANONYMOUS } from '../kernel/principal';
import { LoaderRegistry, servedScope, type Scope } from '../kernel/scope';

/** Where a request's unit of work is kept once forked, shared by every shallow copy of its Scope. */
interface UnitOfWork {
  em?: EntityManager;
  fork: () => EntityManager;
  /** What `fork` forks from, for statements run before (or without) a fork: see sqlReadsOf. */
  shared?: EntityManager;
}

/**
 * A request's Scope, whose unit of work is forked when the request first uses it: many requests
 * (`me`, `GET /auth/user` with the caller's account in memory) use none. The accessor is on the
 * class, not the object, and the unit of work in a holder the object refers to: Apollo runs
 * each operation with a shallow copy of its context (`Object.assign` onto the same prototype),
 * which would otherwise read the accessor, and so fork, for every GraphQL request.
 */
class RequestScope implements Scope {
  principal = ANONYMOUS;
  loaders = new LoaderRegistry();

  constructor(
    private readonly work: UnitOfWork,
    readonly requestId: string,
    readonly remoteAddress: string,
    readonly logger: Logger,
    readonly accessTrail: AccessTrail,
  ) {}

  get em(): EntityManager {
    return (this.work.em ??= this.work.fork());
  }

  /** A subscription renews its unit of work for each event (src/graphql/live.ts). */
  set em(renewed: EntityManager) {
    this.work.em = renewed;
  }

  sharedEm(): EntityManager | undefined {
    return this.work.em ? undefined : this.work.shared;
  }
}

/** A request's Scope before (or without) its caller is known: its own unit of work and loaders, acting as nobody. */
export function anonymousScope(
  req: Request,
  fork: () => EntityManager,
  logger: Logger,
  accessSink: AccessSink | null,
  shared?: EntityManager,
): Scope {
  return new RequestScope(
    { fork, shared },
    requestScope.getStore()?.requestId ?? 'none',
    req.ip ?? req.socket.remoteAddress ?? 'unknown',
    logger,
    new AccessTrail(accessSink),
  );
}

/**
 * Builds the request's Scope (own unit of work, own loaders) and its Principal. A token that is
 * present but unusable is refused here, in the transport's own error format, or, for `lenient`
 * operations that do not act as the caller (sign-up, logins, logout), treated as no token at all.
 * `lenient` may be a test of the request, asked only once a token has failed.
 */
export function authenticate(
  authenticator: Authenticator,
  orm: Orm,
  logger: Logger,
  onError: (error: AppError, res: Response) => void,
  accessSink: AccessSink | null,
  { lenient = false }: { lenient?: boolean | ((req: Request) => boolean) } = {},
) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const scope = anonymousScope(req, () => orm.em.fork(), logger, accessSink, orm.em);
    try {
      scope.principal = await authenticator.principal(req.headers);
    } catch (error) {
      if (!isAppError(error)) return next(error);
      if (!(typeof lenient === 'function' ? lenient(req) : lenient)) return onError(error, res);
    }
    res.locals.scope = scope;
    // Transactions committing anywhere in the request carry its recorded access decisions.
    servedScope.run(scope, next);
  };
}
