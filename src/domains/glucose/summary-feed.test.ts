import { describe, expect, it } from '@jest/globals';
import pino from 'pino';
import { forbidden } from '../../kernel/errors';
import type { Scope } from '../../kernel/scope';
import type { AccessPolicy } from '../permissions/access-policy';
import { SummaryFeed, type SummaryChange } from './summary-feed';

const ALICE = '0f4b8c2a-1d3e-4f5a-9b6c-7d8e9f0a1b2c';
const BOB = '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d';

/**
 * A feed whose access rule lets anyone follow the accounts in `followable` (Alice) and nobody
 * else.
 */
function feed(warnings: unknown[] = [], followable = new Set([ALICE])) {
  const access = {
    assertAllowed: async (_scope: Scope, userId: string) => {
      if (!followable.has(userId)) throw forbidden();
    },
  } as unknown as AccessPolicy;
  const logger = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(JSON.parse(line)) });
  return new SummaryFeed(access, logger);
}

const scope = {} as Scope;
const change = (userId: string, kind: 'cgm' | 'bgm' = 'cgm') => JSON.stringify({ userId, kind });

describe('the live summary feed', () => {
  it('hands a change to the subscribers of that account only', async () => {
    const summaries = feed();
    const events = (await summaries.ofUser(scope, ALICE))[Symbol.asyncIterator]();
    // A subscription follows from its first read on, as graphql-js reads at once.
    const next = events.next();
    await summaries.receive(change(BOB));
    await summaries.receive(change(ALICE, 'bgm'));
    expect((await next).value).toEqual({ userId: ALICE, kind: 'bgm' });
    await events.return?.();
  });

  it('refuses a subscription the access rule refuses, before following anything', async () => {
    await expect(feed().ofUser(scope, BOB)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(feed().ofUser(scope, 'not-an-id')).rejects.toMatchObject({ code: 'INVALID' });
  });

  it('checks access again before each change, and ends the subscription with the refusal once it is gone', async () => {
    const followable = new Set([ALICE]);
    const summaries = feed([], followable);
    const events = (await summaries.ofUser(scope, ALICE))[Symbol.asyncIterator]();
    const first = events.next();
    await summaries.receive(change(ALICE));
    expect((await first).value).toEqual({ userId: ALICE, kind: 'cgm' });
    followable.delete(ALICE);
    const second = events.next();
    await summaries.receive(change(ALICE));
    await expect(second).rejects.toMatchObject({ code: 'FORBIDDEN' });
    // Ended: a later change is not followed any more.
    await summaries.receive(change(ALICE));
    expect(await events.next()).toEqual({ done: true, value: undefined });
  });

  it('keeps only the newest 32 changes for a subscriber that does not keep up', async () => {
    const summaries = feed();
    const events = (await summaries.ofUser(scope, ALICE))[Symbol.asyncIterator]();
    const first = events.next();
    await summaries.receive(change(ALICE));
    expect((await first).value).toEqual({ userId: ALICE, kind: 'cgm' });
    // Nobody reads while 8 older and then 32 newer changes arrive: the 8 older ones are dropped.
    for (let index = 0; index < 8; index += 1) await summaries.receive(change(ALICE, 'bgm'));
    for (let index = 0; index < 32; index += 1) await summaries.receive(change(ALICE, 'cgm'));
    const kept: SummaryChange[] = [];
    for (let index = 0; index < 32; index += 1) kept.push((await events.next()).value);
    expect(kept.every((change) => change.kind === 'cgm')).toBe(true);
    // Nothing more is buffered: a further read waits, and ends when the subscriber leaves.
    const more = events.next();
    await events.return?.();
    expect(await more).toEqual({ done: true, value: undefined });
  });

  it('ignores a malformed notification, saying so in the log', async () => {
    const warnings: { msg?: string }[] = [];
    const summaries = feed(warnings);
    await summaries.receive('{"userId": 42}');
    await summaries.receive('not json');
    expect(warnings.map((line) => line.msg)).toEqual([
      'ignored a malformed glucose summary notification',
      'ignored a malformed glucose summary notification',
    ]);
  });
});
