import { describe, expect, it } from '@jest/globals';
import { AccessTrail, UNKNOWN_SUBJECT, type AccessEvent } from './access-trail';
import type { Scope } from './scope';

/** A trail whose sink keeps what each flush wrote. */
function keptTrail() {
  const written: AccessEvent[][] = [];
  const trail = new AccessTrail(async (_em, _scope, events) => void written.push([...events]));
  return { trail, written, flush: () => trail.flush({} as Scope) };
}

/** Account ids (the trail keeps only what is shaped like one). */
const [a, b, c] = ['0000000a0a', '0000000b0b', '0000000c0c'];

const decision = (subjectId: string, more: Partial<AccessEvent> = {}) => ({
  subjectId,
  outcome: 'ALLOWED' as const,
  objectIds: [] as string[],
  clinicId: null,
  ...more,
});

describe('a request’s access trail', () => {
  it('writes one entry per distinct decision, in the order they were made, named by the operation served', async () => {
    const { trail, written, flush } = keptTrail();
    trail.operation = 'users';
    for (const subject of [a, b, a, b, a]) trail.record(decision(subject));
    trail.record(decision(a, { outcome: 'REFUSED' }));
    trail.record(decision(a, { objectIds: ['blob1'] }));
    trail.record(decision(a, { objectIds: ['blob1', 'blob2'] }));
    trail.record(decision(a, { objectIds: ['blob1'] }));
    trail.record(decision(a, { clinicId: '0123456789abcdef01234567' }));
    trail.operation = 'deviceLogs';
    trail.record(decision(a));
    await flush();
    expect(written).toEqual([
      [
        { ...decision(a), operation: 'users' },
        { ...decision(b), operation: 'users' },
        { ...decision(a, { outcome: 'REFUSED' }), operation: 'users' },
        { ...decision(a, { objectIds: ['blob1'] }), operation: 'users' },
        { ...decision(a, { objectIds: ['blob1', 'blob2'] }), operation: 'users' },
        { ...decision(a, { clinicId: '0123456789abcdef01234567' }), operation: 'users' },
        { ...decision(a), operation: 'deviceLogs' },
      ],
    ]);
  });

  it('writes each decision once across flushes, nothing when nothing is new, and nothing discarded', async () => {
    const { trail, written, flush } = keptTrail();
    trail.record(decision(a));
    await flush();
    trail.record(decision(a));
    await flush();
    trail.record(decision(c));
    trail.discard();
    await flush();
    expect(written).toEqual([[{ ...decision(a), operation: 'unknown' }]]);
  });

  it('records what is not shaped like an account id as the unknown subject, once, never as sent', async () => {
    const { trail, written, flush } = keptTrail();
    const longAddress = `${'x'.repeat(40)}@example.org`;
    for (const subject of [longAddress, 'not an id', '', `${a}x`, a.toUpperCase(), longAddress])
      trail.record(decision(subject));
    trail.record(decision(a));
    await flush();
    expect(written).toEqual([
      [
        { ...decision(UNKNOWN_SUBJECT), operation: 'unknown' },
        { ...decision(a), operation: 'unknown' },
      ],
    ]);
  });
});
