import { describe, expect, it } from '@jest/globals';
import { ReplicaRouting } from './replica-routing';

const MAX_LAG = 1_000;

/** Two replicas, the primary sampled at 0, 250 and 500 ms at positions 100, 200 and 300. */
function routing() {
  const rule = new ReplicaRouting(['replica-1', 'replica-2'], { maxLagMs: MAX_LAG, probeFreshMs: 1_500 });
  rule.samplePrimary({ at: 0, lsn: 100n });
  rule.samplePrimary({ at: 250, lsn: 200n });
  rule.samplePrimary({ at: 500, lsn: 300n });
  return rule;
}

describe('where a read that tolerates staleness runs', () => {
  it('goes to the replicas in turn while they are up and current', () => {
    const rule = routing();
    rule.probed('replica-1', { at: 510, replayed: 300n });
    rule.probed('replica-2', { at: 510, replayed: 300n });
    const chosen = [1, 2, 3, 4].map(() => rule.choose(600, null));
    expect(chosen.map((decision) => decision.target === 'replica' && decision.replica).sort()).toEqual([
      'replica-1',
      'replica-1',
      'replica-2',
      'replica-2',
    ]);
    expect(rule.lagMs('replica-1', 600)).toBe(100);
  });

  it('measures lag from the newest primary sample the replica had replayed, not from replay timestamps', () => {
    const rule = routing();
    // Replayed what the primary held at 0 ms, not what it held at 250.
    rule.probed('replica-1', { at: 510, replayed: 150n });
    expect(rule.lagMs('replica-1', 600)).toBe(600);
    // An idle primary: the same position sampled again, the replica stays current.
    rule.samplePrimary({ at: 5_000, lsn: 300n });
    rule.probed('replica-2', { at: 5_010, replayed: 300n });
    expect(rule.lagMs('replica-2', 5_020)).toBe(20);
  });

  it('skips a replica beyond the maximum lag, and the primary serves when none is left', () => {
    const rule = routing();
    rule.probed('replica-1', { at: 1_400, replayed: 100n });
    rule.probed('replica-2', { at: 1_400, replayed: 300n });
    expect(rule.choose(1_450, null)).toEqual({
      target: 'replica',
      replica: 'replica-2',
      skipped: [{ replica: 'replica-1', reason: 'lagging' }],
    });
    expect(rule.choose(1_600, null)).toMatchObject({ target: 'primary', reason: 'lagging' });
  });

  it('skips a replica that did not answer, whose answer is old, or on which a read failed', () => {
    const rule = routing();
    rule.probed('replica-1', { at: 510, replayed: null });
    rule.probed('replica-2', { at: 510, replayed: 300n });
    expect(rule.choose(600, null)).toMatchObject({ replica: 'replica-2', skipped: [{ reason: 'down' }] });
    // No probe answered for longer than probeFreshMs (the monitor stalled, or the probe hangs).
    expect(rule.lagMs('replica-2', 2_100)).toBeNull();
    rule.failed('replica-2', 700);
    expect(rule.choose(710, null)).toMatchObject({ target: 'primary', reason: 'down' });
    // A probe asked after the failure that answers brings it back.
    rule.probed('replica-2', { at: 720, replayed: 300n });
    expect(rule.choose(730, null)).toMatchObject({ target: 'replica', replica: 'replica-2' });
  });

  it('keeps a caller on the primary after its write until a replica replays a sample asked after it', () => {
    const rule = routing();
    rule.probed('replica-1', { at: 510, replayed: 300n });
    rule.probed('replica-2', { at: 510, replayed: 300n });
    rule.wrote('user:a', 600);
    // No sample asked since the write: nobody can tell which position holds it.
    expect(rule.choose(610, 'user:a')).toMatchObject({ target: 'primary', reason: 'behind_caller' });
    // Other callers are not held back.
    expect(rule.choose(610, 'user:b')).toMatchObject({ target: 'replica' });
    rule.samplePrimary({ at: 750, lsn: 400n });
    rule.probed('replica-1', { at: 760, replayed: 350n });
    rule.probed('replica-2', { at: 760, replayed: 400n });
    expect(rule.choose(770, 'user:a')).toEqual({
      target: 'replica',
      replica: 'replica-2',
      skipped: [{ replica: 'replica-1', reason: 'behind_caller' }],
    });
  });

  it('sends every read of a request that wrote, and every read in a transaction, to the primary', () => {
    const rule = routing();
    rule.probed('replica-1', { at: 510, replayed: 300n });
    expect(rule.choose(600, null, { wroteInRequest: true })).toMatchObject({
      target: 'primary',
      reason: 'wrote_in_request',
    });
    expect(rule.choose(600, null, { inTransaction: true })).toMatchObject({ target: 'primary', reason: 'transaction' });
  });

  it('forgets old samples and old writes once any replica current enough must hold them', () => {
    const rule = routing();
    rule.wrote('user:a', 600);
    rule.samplePrimary({ at: 700, lsn: 400n });
    const later = 700 + rule.memoryMs + 1;
    rule.samplePrimary({ at: later, lsn: 500n });
    rule.probed('replica-1', { at: later + 10, replayed: 500n });
    // The write is forgotten: only the lag rule holds the replica back now, and it is current.
    expect(rule.choose(later + 20, 'user:a')).toMatchObject({ target: 'replica', replica: 'replica-1' });
    // The samples before `later` are gone: a replica that replayed none of the kept ones lags without bound.
    rule.probed('replica-2', { at: later + 10, replayed: 400n });
    expect(rule.lagMs('replica-2', later + 20)).toBe(Infinity);
  });
});
