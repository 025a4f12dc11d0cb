import { describe, expect, it } from '@jest/globals';
import { forbidden } from '../../../kernel/errors';
import type { Scope } from '../../../kernel/scope';
import type { AccessPolicy } from '../../permissions/access-policy';
import type { AgpRows } from './agp.repository';
import { AgpService, type AgpReadings } from './agp.service';

const USER = '0123456789';
const NOW = Date.UTC(2026, 10, 27, 12);
const scope = { em: {} } as unknown as Scope;

/** The database as the service sees it: readings at a revision, counting the window reads. */
function database(readings: number) {
  const state = { revision: 'r1' as string | null, windowReads: 0, readings };
  const rows = (): AgpRows => {
    // In time order, as the repository answers them.
    const time = Float64Array.from({ length: state.readings }, (_, index) => NOW - (state.readings - index) * 300_000);
    return {
      window: { from: NOW - 14 * 86_400_000 + 3_600_000, to: NOW + 3_600_000 },
      readings: {
        time,
        mmol: time.map(() => 6.5),
        minutes: time.map(() => 5),
        recordOffset: Array.from(time, () => null),
        recordZone: Array.from(time, () => null),
        datasetZone: Array.from(time, () => ''),
      },
      revision: state.revision,
    };
  };
  const reader: AgpReadings = {
    window: async () => {
      state.windowReads += 1;
      return rows();
    },
    revision: async () => state.revision,
  };
  return { state, reader };
}

/** An access policy letting the caller in while `allowed`, asked on every read. */
function access() {
  const policy = { allowed: true, asked: 0 };
  const assertAllowed = async () => {
    policy.asked += 1;
    if (!policy.allowed) throw forbidden('Not shared with you');
  };
  return { policy, access: { assertAllowed } as unknown as AccessPolicy };
}

const service = (reader: AgpReadings, policy: AccessPolicy, remembered = 10) =>
  new AgpService(
    policy,
    async () => {
      throw new Error('no clinic here');
    },
    remembered,
    reader,
    () => NOW,
  );

describe('remembered AGPs', () => {
  it('answer again while the readings’ revision is unchanged, and are computed again once it moves', async () => {
    const { state, reader } = database(12);
    const agps = service(reader, access().access);
    const first = await agps.agp(scope, USER, {});
    expect(first.readings).toBe(12);
    expect(await agps.agp(scope, USER, {})).toBe(first);
    expect(state.windowReads).toBe(1);

    state.revision = 'r2';
    state.readings = 13;
    const changed = await agps.agp(scope, USER, {});
    expect(changed.readings).toBe(13);
    expect(state.windowReads).toBe(2);
  });

  it('are kept apart by period, units and zone', async () => {
    const { state, reader } = database(12);
    const agps = service(reader, access().access);
    await agps.agp(scope, USER, {});
    await agps.agp(scope, USER, { period: '7d' });
    await agps.agp(scope, USER, { units: 'MMOL_L' });
    await agps.agp(scope, USER, { timeZone: 'Asia/Tokyo' });
    expect(state.windowReads).toBe(4);
    await agps.agp(scope, USER, { timeZone: 'Asia/Tokyo' });
    expect(state.windowReads).toBe(4);
  });

  it('are never kept for readings without a revision, nor when none may be remembered', async () => {
    const unversioned = database(3);
    unversioned.state.revision = null;
    const agps = service(unversioned.reader, access().access);
    await agps.agp(scope, USER, {});
    await agps.agp(scope, USER, {});
    expect(unversioned.state.windowReads).toBe(2);

    const off = database(3);
    const uncached = service(off.reader, access().access, 0);
    await uncached.agp(scope, USER, {});
    await uncached.agp(scope, USER, {});
    expect(off.state.windowReads).toBe(2);
  });

  it('are answered only after access is granted again, at every read', async () => {
    const { state, reader } = database(12);
    const { policy, access: checked } = access();
    const agps = service(reader, checked);
    await agps.agp(scope, USER, {});
    policy.allowed = false;
    await expect(agps.agp(scope, USER, {})).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect(policy.asked).toBe(2);
    expect(state.windowReads).toBe(1);
  });
});
