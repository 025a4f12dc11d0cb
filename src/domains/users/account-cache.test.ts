import { describe, expect, it } from '@jest/globals';
import { accountCache } from './account-cache';
import type { UserRecord } from './user.entity';

const account: UserRecord = {
  id: 'a',
  username: 'a@example.org',
  emails: ['a@example.org'],
  passwordHash: null,
  roles: [],
  emailVerified: true,
  termsAccepted: null,
  createdTime: new Date('2026-11-01T00:00:00Z'),
  createdUserId: null,
  modifiedTime: null,
  modifiedUserId: null,
};

describe('accountCache', () => {
  it('hands out kept accounts frozen, so no request can change what the next one reads', async () => {
    const notices = { listening: true, on: () => undefined, onConnect: () => undefined };
    const cache = accountCache(notices);
    const first = (
      await cache.read(['a'], async () => new Map([['a', { ...account, emails: [...account.emails] }]]))
    ).get('a')!;
    expect(Object.isFrozen(first) && Object.isFrozen(first.emails)).toBe(true);
    expect(() => (first.emails as string[]).push('x@example.org')).toThrow(TypeError);
    const again = await cache.read(['a'], async () => new Map());
    expect(again.get('a')).toBe(first);
  });
});
