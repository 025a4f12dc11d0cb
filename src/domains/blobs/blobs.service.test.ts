import { createHash } from 'node:crypto';
import { text } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  AS_CLIENT,
  AS_SERVER,
  asUser,
  contentOf,
  outcomeOf,
  startDomainWorld,
  type DomainWorld,
} from '../../../test/support/domain-services';
import { CONTENT_SIZE_LIMIT, EMPTY_MD5 } from '../../kernel/content';
import { ANONYMOUS, type Principal } from '../../kernel/principal';
import type { BlobsService } from './blobs.service';

let world: DomainWorld;
let blobs: BlobsService;
let owner: string;
let custodian: string;
let uploader: string;
let viewer: string;
let outsider: string;

beforeAll(async () => {
  world = await startDomainWorld();
  blobs = world.services.blobs;
  [owner, custodian, uploader, viewer, outsider] = await Promise.all([1, 2, 3, 4, 5].map(() => world.account()));
  await world.share(owner, custodian, ['custodian']);
  await world.share(owner, uploader, ['upload']);
  await world.share(owner, viewer, ['view', 'note']);
});
afterAll(() => world?.stop());

const as = (principal: Principal) => world.scope(principal);
const md5 = (body: string) => createHash('md5').update(body).digest('base64');
const upload = (principal: Principal, userId: string, body = 'bytes', extra: { digestMD5?: string } = {}) =>
  blobs.create(as(principal), userId, { mediaType: 'text/plain', content: contentOf(body, 'text/plain'), ...extra });
const listed = async (userId: string, options = {}) =>
  (await blobs.list(as(AS_SERVER), userId, options)).page.nodes.map((blob) => blob.id);

describe('who may add a blob to an account', () => {
  it('the owner, its uploaders and custodians, and servers', async () => {
    for (const principal of [asUser(owner), asUser(uploader), asUser(custodian), AS_SERVER])
      expect((await upload(principal, owner)).status).toBe('available');
  });

  it('not a viewer nor an outsider (FORBIDDEN); an anonymous caller must authenticate', async () => {
    expect(await outcomeOf(upload(asUser(viewer), owner))).toBe('FORBIDDEN');
    expect(await outcomeOf(upload(asUser(outsider), owner))).toBe('FORBIDDEN');
    expect(await outcomeOf(upload(AS_CLIENT, owner))).toBe('FORBIDDEN');
    expect(await outcomeOf(upload(ANONYMOUS, owner))).toBe('UNAUTHENTICATED');
  });

  it('a server adding to an account that does not exist is told so, and nothing is stored', async () => {
    expect(await outcomeOf(upload(AS_SERVER, '0000000000'))).toBe('NOT_FOUND');
    expect(await listed('0000000000', { statuses: ['available', 'created'] })).toEqual([]);
  });
});

describe('a new blob', () => {
  it('with content is available at its first revision, with the size and digest of its bytes', async () => {
    const blob = await upload(asUser(owner), owner, 'hello blob', { digestMD5: md5('hello blob') });
    expect(blob).toMatchObject({
      userId: owner,
      status: 'available',
      revision: 1,
      size: 10,
      digestMD5: md5('hello blob'),
    });
    const { stream } = await blobs.openContent(as(asUser(owner)), blob.id);
    expect(await text(stream)).toBe('hello blob');
  });

  it('without content, or with an empty body, is created at revision 0 and has no bytes to give', async () => {
    const bare = await blobs.create(as(asUser(owner)), owner, { mediaType: 'image/png' });
    const empty = await upload(asUser(owner), owner, '', { digestMD5: EMPTY_MD5 });
    for (const blob of [bare, empty]) {
      expect(blob).toMatchObject({ status: 'created', revision: 0, size: null, digestMD5: null });
      expect(await outcomeOf(blobs.openContent(as(asUser(owner)), blob.id))).toBe('NOT_FOUND');
    }
  });

  it('whose bytes do not match the digest sent is refused and leaves nothing behind', async () => {
    const owned = await world.account();
    expect(await outcomeOf(upload(asUser(owned), owned, 'these bytes', { digestMD5: md5('other bytes') }))).toBe(
      'DIGEST_MISMATCH',
    );
    expect(
      await outcomeOf(blobs.create(as(asUser(owned)), owned, { mediaType: 'text/plain', digestMD5: md5('x') })),
    ).toBe('DIGEST_MISMATCH');
    expect(await listed(owned, { statuses: ['available', 'created'] })).toEqual([]);
    expect(await world.storedKeys(`blobs/${owned}/`)).toEqual([]);
  });

  it('announcing more than 100 MiB is TOO_LARGE before a byte is read, and nothing is stored', async () => {
    const owned = await world.account();
    const content = { ...contentOf('small'), declaredSize: CONTENT_SIZE_LIMIT + 1 };
    expect(await outcomeOf(blobs.create(as(asUser(owned)), owned, { mediaType: 'text/plain', content }))).toBe(
      'TOO_LARGE',
    );
    expect(await listed(owned, { statuses: ['available', 'created'] })).toEqual([]);
    expect(await world.storedKeys(`blobs/${owned}/`)).toEqual([]);
  });

  it('needs a media type and a well-formed digest, naming the field', async () => {
    await expect(blobs.create(as(asUser(owner)), owner, { mediaType: 'not a type' })).rejects.toMatchObject({
      code: 'INVALID',
      details: { field: 'mediaType' },
    });
    await expect(
      blobs.create(as(asUser(owner)), owner, { mediaType: 'text/plain', digestMD5: 'abc' }),
    ).rejects.toMatchObject({ code: 'INVALID', details: { field: 'digestMD5' } });
  });
});

describe('content added later', () => {
  it('makes a created blob available at the next revision, once only', async () => {
    const blob = await blobs.create(as(asUser(uploader)), owner, { mediaType: 'text/plain' });
    const updated = await blobs.addContent(as(asUser(uploader)), blob.id, { content: contentOf('later') });
    expect(updated).toMatchObject({ status: 'available', revision: 1, size: 5, mediaType: 'text/plain' });
    expect(await outcomeOf(blobs.addContent(as(asUser(owner)), blob.id, { content: contentOf('again') }))).toBe(
      'CONFLICT',
    );
  });

  it('must not be empty, and a viewer may not add it', async () => {
    const blob = await blobs.create(as(asUser(owner)), owner, { mediaType: 'text/plain' });
    await expect(blobs.addContent(as(asUser(owner)), blob.id, { content: contentOf('') })).rejects.toMatchObject({
      code: 'INVALID',
      details: { field: 'content' },
    });
    expect(await outcomeOf(blobs.addContent(as(asUser(viewer)), blob.id, { content: contentOf('x') }))).toBe(
      'FORBIDDEN',
    );
    expect((await blobs.get(as(asUser(owner)), blob.id)).status).toBe('created');
  });
});

describe('who may read an account’s blobs', () => {
  let blobId: string;
  beforeAll(async () => {
    blobId = (await upload(asUser(owner), owner, 'private')).id;
  });

  it('the owner, its custodians and servers: the record, the bytes and the list', async () => {
    for (const principal of [asUser(owner), asUser(custodian), AS_SERVER]) {
      expect((await blobs.get(as(principal), blobId)).id).toBe(blobId);
      expect(await text((await blobs.openContent(as(principal), blobId)).stream)).toBe('private');
      expect((await blobs.list(as(principal), owner)).page.nodes.map((blob) => blob.id)).toContain(blobId);
    }
  });

  it('not an uploader, a viewer or an outsider, though the uploader may add blobs', async () => {
    for (const principal of [asUser(uploader), asUser(viewer), asUser(outsider)]) {
      expect(await outcomeOf(blobs.get(as(principal), blobId))).toBe('FORBIDDEN');
      expect(await outcomeOf(blobs.openContent(as(principal), blobId))).toBe('FORBIDDEN');
      expect(await outcomeOf(blobs.list(as(principal), owner))).toBe('FORBIDDEN');
    }
    expect(await outcomeOf(blobs.get(as(ANONYMOUS), blobId))).toBe('UNAUTHENTICATED');
  });

  it('a caller who may not read finds an empty list among many, not an error', async () => {
    const { page, count } = await blobs.listOf(as(asUser(viewer)), owner);
    expect([page.nodes, await count()]).toEqual([[], 0]);
  });

  it('an id that names no blob is NOT_FOUND, one that is no id INVALID', async () => {
    expect(await outcomeOf(blobs.get(as(asUser(owner)), 'a'.repeat(32)))).toBe('NOT_FOUND');
    await expect(blobs.get(as(asUser(owner)), 'A'.repeat(32))).rejects.toMatchObject({
      code: 'INVALID',
      details: { field: 'blobId' },
    });
  });
});

describe('an account’s blob list', () => {
  it('shows available blobs newest first by default, others when asked by status', async () => {
    const user = await world.account();
    const first = await upload(asUser(user), user, 'one');
    const second = await upload(asUser(user), user, 'two');
    const bare = await blobs.create(as(asUser(user)), user, { mediaType: 'text/plain' });
    expect(await listed(user)).toEqual([second.id, first.id]);
    expect(await listed(user, { statuses: ['created'] })).toEqual([bare.id]);
    expect(await listed(user, { mediaTypes: ['image/png'] })).toEqual([]);
    await expect(blobs.list(as(AS_SERVER), user, { statuses: ['lost'] })).rejects.toMatchObject({
      code: 'INVALID',
      details: { field: 'status' },
    });
  });
});

describe('removing blobs', () => {
  it('removes the record and the bytes; at a stated revision only if the blob is still at it', async () => {
    const blob = await upload(asUser(owner), owner, 'to remove');
    expect(await world.storedKeys(`blobs/${owner}/${blob.id}/`)).toEqual([blob.objectKey]);
    expect(await outcomeOf(blobs.delete(as(asUser(owner)), blob.id, 0))).toBe('NOT_FOUND');
    await blobs.delete(as(asUser(custodian)), blob.id, 1);
    expect(await outcomeOf(blobs.get(as(asUser(owner)), blob.id))).toBe('NOT_FOUND');
    expect(await world.storedKeys(`blobs/${owner}/${blob.id}/`)).toEqual([]);
    await expect(blobs.delete(as(asUser(owner)), blob.id, -1)).rejects.toMatchObject({
      details: { field: 'revision' },
    });
  });

  it('an uploader may not remove what it cannot read', async () => {
    const blob = await upload(asUser(uploader), owner, 'kept');
    expect(await outcomeOf(blobs.delete(as(asUser(uploader)), blob.id))).toBe('FORBIDDEN');
    expect(await outcomeOf(blobs.deleteAllOf(as(asUser(uploader)), owner))).toBe('FORBIDDEN');
    expect((await blobs.get(as(asUser(owner)), blob.id)).id).toBe(blob.id);
  });

  it('all of an account’s blobs go at once, another account’s stay', async () => {
    const [user, neighbour] = [await world.account(), await world.account()];
    await upload(asUser(user), user, 'a');
    await blobs.create(as(asUser(user)), user, { mediaType: 'text/plain' });
    const kept = await upload(asUser(neighbour), neighbour, 'b');
    await blobs.deleteAllOf(as(asUser(user)), user);
    expect(await listed(user, { statuses: ['available', 'created'] })).toEqual([]);
    expect(await world.storedKeys(`blobs/${user}/`)).toEqual([]);
    expect(await world.storedKeys(`blobs/${neighbour}/`)).toEqual([kept.objectKey]);
    expect(await listed(neighbour)).toEqual([kept.id]);
  });
});
