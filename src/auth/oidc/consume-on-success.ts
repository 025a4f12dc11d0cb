import type { KoaContextWithOIDC } from 'oidc-provider';
import { isDatabaseUnavailable } from '../../infra/database/availability';
import { answerUnavailable } from './unavailable';
import { deferredConsumes } from './postgres-adapter';

/**
 * A token grant marks what it exchanges (a refresh token, a code) consumed only once it has
 * delivered its tokens. oidc-provider consumes the old refresh token before saving the new one
 * and the access token: when the database went away in between, the grant answered 503, and the
 * client's retry with the same refresh token read as a replay ("already used"), which revokes
 * the whole session. Now a grant that answers anything but 200 consumes nothing, and one whose
 * consumption cannot be written answers 503 instead of its tokens: either way the client's
 * token stays usable for its retry. Tokens saved by a failed grant are never handed out and
 * expire unused.
 */
export function consumeOnSuccess() {
  return async (ctx: KoaContextWithOIDC, next: () => Promise<unknown>): Promise<void> => {
    const consumes: (() => Promise<void>)[] = [];
    await deferredConsumes.run(consumes, next);
    if (ctx.status !== 200) return;
    try {
      for (const consume of consumes) await consume();
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      answerUnavailable(ctx);
    }
  };
}
