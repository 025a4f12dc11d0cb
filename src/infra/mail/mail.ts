import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * What mail a domain asks for: already rendered (the domain owns its templates), addressed to one
 * recipient. `kind` names what the mail is for (`signup_confirmation`, `password_reset`,
 * `careteam_invitation`, `clinician_invitation`), for metrics and the log.
 */
export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
  kind: string;
}

/** Who asked for a mail: its limits are counted per recipient address and per source address. */
export interface MailRequester {
  /** The client's address (the request's `ip`); undefined for work the service starts itself. */
  source?: string;
}

/**
 * The transactional outbox. `enqueue` writes the mail as a row in the caller's transaction, so a
 * mail leaves only if the action that needs it commits, and an SMTP outage delays it without
 * losing it. It refuses with RATE_LIMITED (kernel `rateLimited`, with `retryAfter`) when the
 * recipient or the source has had its share of mail, before anything is written.
 */
export interface MailQueue {
  enqueue(em: EntityManager, mail: Mail, requester: MailRequester): Promise<void>;
}
