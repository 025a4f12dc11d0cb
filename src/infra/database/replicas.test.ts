import { performance } from 'node:perf_hooks';
import { describe, expect, it } from '@jest/globals';
import { createLogger } from '../logger';
import type { ReplicaConnection } from './replica-connections';
import { ReplicaMonitor } from './replicas';

/** A monitor that never probes (not started): the test tells its routing what it would have seen. */
function monitor(): ReplicaMonitor {
  const replica = { name: 'replica-1', connection: {}, url: 'postgres://127.0.0.1:1/none' } as ReplicaConnection & {
    url: string;
  };
  const watching = new ReplicaMonitor('postgres://127.0.0.1:1/none', [replica], {
    maxLagMs: 1_000,
    callerOf: () => null,
    logger: createLogger('silent'),
  });
  const now = performance.now();
  watching.routing.samplePrimary({ at: now, lsn: 10n });
  watching.routing.probed('replica-1', { at: now, replayed: 10n });
  return watching;
}

describe("another instance's announcement of a caller's write", () => {
  it('keeps that caller on the primary here too, and no one else', () => {
    const watching = monitor();
    watching.announced('another-instance user:a');
    const now = performance.now();
    expect(watching.routing.choose(now, 'user:a')).toMatchObject({ target: 'primary', reason: 'behind_caller' });
    expect(watching.routing.choose(now, 'user:b')).toMatchObject({ target: 'replica' });
  });

  it('is ignored when it is this instance’s own, or malformed', () => {
    const watching = monitor();
    watching.announced(`${watching.instanceId} user:a`);
    watching.announced('user:a');
    expect(watching.routing.choose(performance.now(), 'user:a')).toMatchObject({ target: 'replica' });
  });
});
