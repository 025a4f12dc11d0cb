import { describe, expect, it } from '@jest/globals';
import { hashPassword, verifyPassword } from './password-hash';

describe('password hashes', () => {
  it('are salted argon2id in PHC format and verify only the right password', async () => {
    const first = await hashPassword('correct-horse');
    const second = await hashPassword('correct-horse');
    expect(first).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(first).not.toBe(second);
    expect(await verifyPassword('correct-horse', first)).toBe(true);
    expect(await verifyPassword('correct-horsE', first)).toBe(false);
    expect(await verifyPassword('correct-horse', 'not-a-hash')).toBe(false);
  });
});
