import type { EntityManager } from '@mikro-orm/postgresql';
import { IdentityLinkSchema } from './identity-link.entity';

/** Which account an external identity (realm, provider alias, subject) belongs to. */
export class IdentityLinks {
  async find(em: EntityManager, realm: string, alias: string, subject: string): Promise<string | null> {
    const link = await em.findOne(IdentityLinkSchema, { realm, alias, subject });
    return link?.userId ?? null;
  }

  async link(
    em: EntityManager,
    realm: string,
    alias: string,
    subject: string,
    userId: string,
    email: string | undefined,
  ): Promise<void> {
    await em.upsert(
      IdentityLinkSchema,
      { realm, alias, subject, userId, email: email ?? null, createdTime: new Date() },
      { onConflictFields: ['realm', 'alias', 'subject'], onConflictAction: 'ignore' },
    );
  }

  /** Part of deleting an account. */
  async forgetUser(em: EntityManager, userId: string): Promise<void> {
    await em.nativeDelete(IdentityLinkSchema, { userId });
  }
}
