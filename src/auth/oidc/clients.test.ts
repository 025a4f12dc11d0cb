import { describe, expect, it } from '@jest/globals';
import { useTestOrm } from '../../../test/support/test-orm';
import { sqlOf } from '../../infra/database/sql-runner';
import { developmentClient, registerClients, type ClientDefinition } from './clients';

const tested = useTestOrm();

const stored = async (id: string) => {
  const [row] = await sqlOf(tested.orm.em.fork()).rows<{ payload: Record<string, unknown> }>(
    `select payload from oidc_records where realm = 'qa1' and model = 'Client' and id = ?`,
    [id],
  );
  return row?.payload;
};

const client = (id: string, grant: string): ClientDefinition => ({ client_id: id, grant_types: [grant] });

describe('registering clients', () => {
  it('stores each client once, the last of several definitions of one id winning', async () => {
    const definitions = [client('twice', 'client_credentials'), client('once', 'refresh_token')];
    expect(await registerClients(tested.orm, 'qa1', [...definitions, client('twice', 'authorization_code')])).toEqual(
      [],
    );
    expect(await stored('twice')).toMatchObject({ grant_types: ['authorization_code'], response_types: ['code'] });
    expect(await stored('once')).toMatchObject({ grant_types: ['refresh_token'] });
  });

  it('keeps a secret stored first, and names the client whose own secret then differs', async () => {
    expect(await registerClients(tested.orm, 'qa1', [developmentClient('first-secret-0123456789')])).toEqual([]);
    const first = await stored('islet-dev');
    expect(await registerClients(tested.orm, 'qa1', [developmentClient('other-secret-0123456789')])).toEqual([
      'islet-dev',
    ]);
    expect((await stored('islet-dev'))!.client_secret).toBe(first!.client_secret);
    expect(await registerClients(tested.orm, 'qa1', [developmentClient('first-secret-0123456789')])).toEqual([]);
  });
});
