import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** An account's identity at an external provider of a realm (brokered login, token exchange). */
export const IdentityLinkSchema = defineEntity({
  name: 'IdentityLink',
  tableName: 'identity_links',
  properties: {
    realm: p.string().primary().length(32),
    alias: p.string().primary().length(64),
    subject: p.string().primary().length(255),
    userId: p.string().length(10).index(),
    email: p.text().nullable(),
    createdTime: p.datetime(),
  },
});

export type IdentityLink = InferEntity<typeof IdentityLinkSchema>;
