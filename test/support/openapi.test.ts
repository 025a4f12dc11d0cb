import type { Reply } from './http';
import { expectMatchesOperation } from './openapi';

function reply(status: number, body: unknown): Reply {
  return { status, body, headers: new Headers(), text: JSON.stringify(body) };
}

const clinic = {
  id: '0123456789abcdef01234567',
  name: 'Clinic',
  shareCode: 'ABCD-EFGH-JKLM',
  canMigrate: false,
  createdTime: '2026-11-24T10:00:00.000Z',
  updatedTime: '2026-11-24T10:00:00.000Z',
  tier: 'tier0100',
  tierDescription: 'Free',
  preferredBgUnits: 'mg/dL',
  timezone: 'US/Eastern',
};

describe('expectMatchesOperation', () => {
  it('accepts a body that matches the response schema of the status', async () => {
    await expectMatchesOperation(reply(200, clinic), 'clinic.v1.yaml', 'GetClinic');
    await expectMatchesOperation(reply(200, [clinic]), 'clinic.v1.yaml', 'ListClinics');
  });

  it('names the field that does not match', async () => {
    const { shareCode: _omitted, ...withoutShareCode } = clinic;
    await expect(expectMatchesOperation(reply(200, withoutShareCode), 'clinic.v1.yaml', 'GetClinic')).rejects.toThrow(
      /must have required property 'shareCode'/,
    );
    await expect(
      expectMatchesOperation(reply(200, { ...clinic, timezone: 'Mars/Olympus' }), 'clinic.v1.yaml', 'GetClinic'),
    ).rejects.toThrow(/\/timezone must be equal to one of the allowed values/);
  });

  it('refuses a status the operation does not declare, and an unknown operation', async () => {
    await expect(expectMatchesOperation(reply(201, clinic), 'clinic.v1.yaml', 'GetClinic')).rejects.toThrow(
      /declares no 201 response/,
    );
    await expect(expectMatchesOperation(reply(200, clinic), 'clinic.v1.yaml', 'NoSuchThing')).rejects.toThrow(
      /has no operation NoSuchThing/,
    );
  });

  it('checks only the status when the file declares no body for it', async () => {
    await expectMatchesOperation(reply(200, ''), 'clinic.v1.yaml', 'DeleteClinician');
  });
});
