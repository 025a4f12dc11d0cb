import { describe, expect, it } from '@jest/globals';
import { useTestOrm } from '../../../test/support/test-orm';
import { AccessTrail } from '../../kernel/access-trail';
import { LoaderRegistry, type Scope } from '../../kernel/scope';
import { AccessPolicy } from './access-policy';
import { MAX_KEPT_GRANTS, ReceivedGrants } from './received-grants';

/**
 * Which reads of an account's received grants come from memory, and what the access policy does
 * with them. Notices are held back here, so a grant written in SQL afterwards shows whether a
 * read came from the table.
 */
const tested = useTestOrm();
const notices = { listening: true, on: () => undefined, onConnect: () => undefined };

let ids = 0;
/** A fresh account id (10 hex digits, as the service makes them). */
const newId = () => (0xa000000000 + (ids += 1)).toString(16);

const scopeOf = (userId: string | null = null, em = tested.orm.em.fork()) =>
  ({
    principal: { userId, isServer: userId === null, realm: 'dev1', clientId: 'test', scopes: [] },
    em,
    loaders: new LoaderRegistry(),
    accessTrail: new AccessTrail(null),
  }) as unknown as Scope;

async function grantInSql(sharerId: string, granteeId: string, permissions: string[]): Promise<void> {
  await tested.database.query(
    `insert into permission_grants (sharer_id, grantee_id, permissions, created_time, modified_time)
     values ($1, $2, $3, now(), now())
     on conflict (sharer_id, grantee_id) do update set permissions = excluded.permissions`,
    [sharerId, granteeId, permissions],
  );
}

const revokeInSql = (sharerId: string, granteeId: string) =>
  tested.database.query('delete from permission_grants where sharer_id = $1 and grantee_id = $2', [
    sharerId,
    granteeId,
  ]);

const sharersOf = async (received: ReceivedGrants, granteeId: string, scope = scopeOf()) => [
  ...((await received.of(scope, granteeId))?.keys() ?? []),
];

describe("an account's received grants kept in memory", () => {
  it('are kept once read, read again while this instance changes them, and read from the table inside a transaction', async () => {
    const received = new ReceivedGrants(notices);
    const [grantee, first, second] = [newId(), newId(), newId()];
    await grantInSql(first, grantee, ['view']);
    expect(await sharersOf(received, grantee)).toEqual([first]);
    await grantInSql(second, grantee, ['view']);
    // No notice came: the kept grants are answered.
    expect(await sharersOf(received, grantee)).toEqual([first]);
    await tested.orm.em.fork().transactional(async (tx) => {
      expect(await received.of(scopeOf(null, tx), grantee)).toBeNull();
    });
    received.changing(grantee);
    expect(await sharersOf(received, grantee)).toEqual([first, second]);
  });

  it('are paged as the table pages them, one more than asked, with their count', async () => {
    const received = new ReceivedGrants(notices);
    const grantee = newId();
    const sharers = [newId(), newId(), newId()];
    for (const sharer of sharers) await grantInSql(sharer, grantee, ['view']);
    const firstPage = await received.page(scopeOf(), grantee, { first: 1, after: null });
    expect(firstPage?.rows.map((row) => row.sharer_id)).toEqual(sharers.slice(0, 2));
    expect(firstPage?.count).toBe(3);
    const next = await received.page(scopeOf(), grantee, { first: 5, after: [sharers[0]!] });
    expect(next?.rows.map((row) => row.sharer_id)).toEqual(sharers.slice(1));
    // After a sharer no longer among them, the table says where the next page starts.
    expect(await received.page(scopeOf(), grantee, { first: 5, after: ['ffffffffff'] })).toBeNull();
  });

  it(`are not kept for an account that received more than ${MAX_KEPT_GRANTS}`, async () => {
    const received = new ReceivedGrants(notices);
    const grantee = newId();
    await tested.database.query(
      `insert into permission_grants (sharer_id, grantee_id, permissions, created_time, modified_time)
       select lpad(to_hex(n), 10, '0'), $1, '{view}', now(), now() from generate_series(1, $2::int) n`,
      [grantee, MAX_KEPT_GRANTS + 1],
    );
    expect(await received.of(scopeOf(), grantee)).toBeNull();
    expect(await received.page(scopeOf(), grantee, { first: 10, after: null })).toBeNull();
  });
});

describe('the access policy with received grants kept', () => {
  it('refuses from memory, but lets a caller in only on a grant read from the table', async () => {
    const received = new ReceivedGrants(notices);
    const policy = new AccessPolicy([], undefined, received);
    const [caller, viewed, custodied, stranger] = [newId(), newId(), newId(), newId()];
    await grantInSql(viewed, caller, ['view']);
    await grantInSql(custodied, caller, ['custodian']);
    const allowed = (target: string, requirement: ['custodian'] | ['view']) =>
      policy.isAllowed(scopeOf(caller), target, requirement);
    expect(await allowed(custodied, ['custodian'])).toBe(true);
    expect(await allowed(viewed, ['custodian'])).toBe(false);
    // Revoked with no notice (another instance, a moment ago): memory still holds it, the table does not.
    await revokeInSql(custodied, caller);
    expect(await allowed(custodied, ['custodian'])).toBe(false);
    // Given with no notice: memory refuses it until the notice, or this instance's own change.
    await grantInSql(stranger, caller, ['view']);
    await grantInSql(viewed, caller, ['custodian']);
    expect(await allowed(stranger, ['view'])).toBe(false);
    expect(await allowed(viewed, ['custodian'])).toBe(false);
    received.changing(caller);
    expect(await allowed(stranger, ['view'])).toBe(true);
    expect(await allowed(viewed, ['custodian'])).toBe(true);
  });
});
