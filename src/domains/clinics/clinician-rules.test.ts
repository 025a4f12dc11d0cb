import { AppError } from '../../kernel/errors';
import { assertKeepsAnAdmin, checkInviteEmail, checkRoles, successorAdmin, type RoleChange } from './clinician-rules';

const admin: RoleChange = { userId: 'a', roles: ['CLINIC_ADMIN'] };
const member: RoleChange = { userId: 'm', roles: ['CLINIC_MEMBER', 'PRESCRIBER'] };

function conflictOf(run: () => void): string | null {
  try {
    run();
    return null;
  } catch (error) {
    expect((error as AppError).code).toBe('CONFLICT');
    return (error as AppError).message;
  }
}

describe('the last-admin rule', () => {
  it('refuses to demote or remove the only admin, saying why', () => {
    expect(conflictOf(() => assertKeepsAnAdmin([admin, member], { userId: 'a', roles: ['CLINIC_MEMBER'] }))).toMatch(
      /last CLINIC_ADMIN .* cannot be demoted/,
    );
    expect(conflictOf(() => assertKeepsAnAdmin([admin, member], { userId: 'a', roles: null }))).toMatch(
      /last CLINIC_ADMIN .* cannot be removed/,
    );
  });

  it('lets an admin go when another stays, and leaves non-admins free', () => {
    const second = { userId: 'b', roles: ['CLINIC_ADMIN', 'PRESCRIBER'] } as RoleChange;
    expect(conflictOf(() => assertKeepsAnAdmin([admin, second], { userId: 'a', roles: null }))).toBeNull();
    expect(conflictOf(() => assertKeepsAnAdmin([admin, member], { userId: 'm', roles: null }))).toBeNull();
    expect(
      conflictOf(() => assertKeepsAnAdmin([admin], { userId: 'a', roles: ['PRESCRIBER', 'CLINIC_ADMIN'] })),
    ).toBeNull();
  });

  it('hands a clinic left without admin to the clinician who joined first', () => {
    const joined = (userId: string, day: number, roles: RoleChange['roles']) => ({
      userId,
      roles,
      createdTime: new Date(Date.UTC(2026, 0, day)),
    });
    expect(successorAdmin([joined('late', 5, ['PRESCRIBER']), joined('early', 2, ['CLINIC_MEMBER'])])?.userId).toBe(
      'early',
    );
    expect(successorAdmin([joined('x', 1, ['CLINIC_ADMIN']), joined('y', 0, ['CLINIC_MEMBER'])])).toBeNull();
    expect(successorAdmin([])).toBeNull();
  });
});

describe('roles and invitations', () => {
  it('takes at least one known role, none twice', () => {
    expect(checkRoles(['PRESCRIBER', 'CLINIC_MEMBER'])).toEqual(['PRESCRIBER', 'CLINIC_MEMBER']);
    for (const roles of [[], ['CLINIC_MEMBER', 'CLINIC_MEMBER'], ['DOCTOR']]) {
      expect(() => checkRoles(roles)).toThrow(
        expect.objectContaining({ code: 'INVALID', details: { field: 'roles' } }),
      );
    }
  });

  it('addresses invitations by the lower-cased email', () => {
    expect(checkInviteEmail('Dr.Who@Example.ORG')).toBe('dr.who@example.org');
    expect(() => checkInviteEmail('nope')).toThrow(expect.objectContaining({ details: { field: 'email' } }));
  });
});
