import { describe, expect, it } from '@jest/globals';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Request } from 'express';
import { createLogger } from '../infra/logger';
import { sqlReadsOf } from '../kernel/units-of-work';
import { anonymousScope } from './authenticate';

/** A scope whose forks are counted, each a distinct stand-in unit of work. */
function countedScope(shared?: EntityManager) {
  const forks: object[] = [];
  const fork = () => {
    const em = { fork: forks.length };
    forks.push(em);
    return em as unknown as EntityManager;
  };
  const req = { ip: '203.0.113.9', socket: {} } as unknown as Request;
  return { scope: anonymousScope(req, fork, createLogger('silent'), null, shared), forks };
}

describe("a request's scope", () => {
  it('forks its unit of work only when first used, once', () => {
    const { scope, forks } = countedScope();
    expect(forks).toHaveLength(0);
    expect(scope.em).toBe(scope.em);
    expect(forks).toHaveLength(1);
  });

  it("shares one unit of work with the shallow copy Apollo makes of a request's context, forking none for it", () => {
    const { scope, forks } = countedScope();
    // As @apollo/server copies the context of every operation (cloneObject in ApolloServer.js).
    const copy = Object.assign(Object.create(Object.getPrototypeOf(scope) as object) as typeof scope, scope);
    expect(forks).toHaveLength(0);
    expect(copy.em).toBe(scope.em);
    expect(forks).toHaveLength(1);
  });

  it('takes the unit of work a transaction hands it, as a copy with its own, leaving the request its own', () => {
    const { scope, forks } = countedScope();
    const tx = { tx: true } as unknown as EntityManager;
    const inTransaction = { ...scope, em: tx };
    expect(inTransaction.em).toBe(tx);
    expect(inTransaction.principal).toBe(scope.principal);
    expect(forks).toHaveLength(0);
  });

  it('runs hand-written statements on the shared entity manager until it forks, then on its unit of work', () => {
    const shared = { shared: true } as unknown as EntityManager;
    const { scope, forks } = countedScope(shared);
    expect(sqlReadsOf(scope)).toBe(shared);
    expect(forks).toHaveLength(0);
    const own = scope.em;
    expect(sqlReadsOf(scope)).toBe(own);
    // A copy given a transaction's unit of work runs its statements there.
    const tx = { tx: true } as unknown as EntityManager;
    expect(sqlReadsOf({ ...scope, em: tx })).toBe(tx);
  });
});
