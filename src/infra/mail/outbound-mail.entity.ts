import { defineEntity, p } from '@mikro-orm/core';

/**
 * One mail of the transactional outbox (outbox.ts), written in the transaction of the action
 * that needs it and sent by the sender (sender.ts). `dueAt` is when the next attempt may start:
 * an attempt in progress pushes it past its lease, a failed one past its backoff. Once sent, the
 * bodies (which hold keys) are cleared and the row stays only as long as the limits count it.
 */
export const OutboundMailSchema = defineEntity({
  name: 'OutboundMail',
  tableName: 'outbound_mails',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    kind: p.text(),
    recipient: p.text(),
    source: p.text().nullable(),
    subject: p.text(),
    textBody: p.text().nullable(),
    htmlBody: p.text().nullable(),
    createdAt: p.datetime().defaultRaw('now()'),
    dueAt: p.datetime().defaultRaw('now()'),
    attempts: p.integer().default(0),
    lastError: p.text().nullable(),
    sentAt: p.datetime().nullable(),
  },
  // Why each exists: migrations/Migration20261127080000_mail_outbox.ts.
  indexes: [
    {
      name: 'outbound_mails_due',
      expression: 'create index "outbound_mails_due" on "outbound_mails" ("due_at") where "sent_at" is null',
    },
    {
      name: 'outbound_mails_recipient_created_at',
      expression:
        'create index "outbound_mails_recipient_created_at" on "outbound_mails" (lower("recipient"), "created_at")',
    },
    { name: 'outbound_mails_source_created_at', properties: ['source', 'createdAt'] },
  ],
});
