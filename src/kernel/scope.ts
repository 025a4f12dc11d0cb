import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from 'pino';
import type { AccessTrail } from './access-trail';
import type { Principal } from './principal';
import type { UnitOfWorkHolder } from './units-of-work';

/**
 * Everything one request carries into a domain service: the caller, a unit of work of its own,
 * and the request's DataLoaders. Created per request by the transport, never shared.
 */
export interface Scope extends UnitOfWorkHolder {
  principal: Principal;
  loaders: LoaderRegistry;
  requestId: string;
  /** The caller's address (behind a trusted proxy: the forwarded one), for rate limits and lockouts. */
  remoteAddress: string;
  logger: Logger;
  /** The access decisions on other accounts made for this request, for the access log. */
  accessTrail: AccessTrail;
}

/** Lazily creates one loader per key per request, so batching spans the whole request. */
export class LoaderRegistry {
  private readonly loaders = new Map<string, unknown>();

  get<T>(key: string, create: () => T): T {
    let loader = this.loaders.get(key) as T | undefined;
    if (loader === undefined) {
      loader = create();
      this.loaders.set(key, loader);
    }
    return loader;
  }
}

/**
 * The Scope of the request being served, so that a transaction committing anywhere in it (every
 * domain has its own) can carry the request's recorded decisions (see the access-log domain's
 * transaction subscriber).
 */
export const servedScope = new AsyncLocalStorage<Scope>();
