import type { Orm } from '../../infra/database/orm';
import { PostgresAdapter } from '../oidc/postgres-adapter';
import type { ExternalIdentity } from './broker.service';

/** What a brokered login remembers between the redirect out and the return (10 minutes at most). */
export interface BrokerState {
  uid: string;
  alias: string;
  codeVerifier?: string;
  nonce?: string;
  identity?: ExternalIdentity;
}

const TTL_SECONDS = 600;
const noop = async () => undefined;

/** Single-use records kept with the realm's other OIDC artefacts. */
export class BrokerStates {
  constructor(private readonly orm: Orm) {}

  private store(realm: string) {
    return new PostgresAdapter(this.orm, realm, 'BrokerState', noop);
  }

  async put(realm: string, key: string, state: BrokerState): Promise<void> {
    await this.store(realm).upsert(key, state as never, TTL_SECONDS);
  }

  /** The state under `key`, removed as it is read. */
  async take(realm: string, key: string): Promise<BrokerState | undefined> {
    const store = this.store(realm);
    const state = (await store.find(key)) as BrokerState | undefined;
    if (state) await store.destroy(key);
    return state;
  }
}
