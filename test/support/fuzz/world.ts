import { randomBytes } from 'node:crypto';
import { serverToken, signUp, uniqueEmail, type TestAccount } from '../accounts';
import type { TestApp } from '../app';
import { addClinician, newClinic } from '../clinics';
import { uploadBlob, uploadLog } from '../content';
import { call } from '../http';

/** Every kind of caller a request can come from; `forged` sends a token no realm issued. */
export const CALLERS = [
  'anonymous',
  'forged',
  'owner',
  'grantee',
  'clinicAdmin',
  'clinicMember',
  'outsider',
  'server',
] as const;
export type Caller = (typeof CALLERS)[number];

const ACCOUNTS = ['owner', 'grantee', 'clinicAdmin', 'clinicMember', 'outsider'] as const;
type AccountRole = (typeof ACCOUNTS)[number];

/**
 * The objects a fuzz case may name, each of a known caller: the owner shares its data with the
 * grantee (view, note, upload) and is a patient of the clinic; the clinic's admin created it, its
 * member was added by the server; the outsider has no relation to anyone.
 */
export interface World {
  accounts: Record<AccountRole, TestAccount>;
  tokens: Record<Caller, string | undefined>;
  clinicId: string;
  shareCode: string;
  blobId: string;
  emptyBlobId: string;
  deviceLogId: string;
  datasetId: string;
  patientTagId: string;
  clinicianInviteId: string;
  patientInviteId: string;
}

const WINDOW = { start: '2024-03-01T00:00:00Z', end: '2024-03-02T00:00:00Z' };

function expectStatus(reply: { status: number; text: string }, what: string, ...statuses: number[]): void {
  if (!statuses.includes(reply.status)) throw new Error(`fuzz world: ${what} answered ${reply.status} ${reply.text}`);
}

/** The owner invites the clinic by share code and the admin accepts: the owner becomes its patient. */
async function becomePatient(app: TestApp, world: Pick<World, 'clinicId' | 'shareCode'>, patient: TestAccount) {
  const invited = await call(app.url, `/confirm/send/invite/${patient.userid}/clinic`, {
    token: patient.token,
    json: { shareCode: world.shareCode, permissions: { view: {}, upload: {} } },
  });
  expectStatus(invited, 'the patient invite', 200, 201);
}

async function pendingPatientInvites(app: TestApp, clinicId: string, admin: TestAccount) {
  const reply = await call(app.url, `/v1/clinics/${clinicId}/invites/patients`, { token: admin.token });
  expectStatus(reply, 'the patient invite list', 200);
  return reply.body as { key: string; creatorId: string }[];
}

export async function buildWorld(app: TestApp): Promise<World> {
  const server = await serverToken(app);
  const [owner, grantee, clinicAdmin, clinicMember, outsider] = await Promise.all(
    ACCOUNTS.map((role) => signUp(app, role)),
  );
  const clinic = await newClinic(app, clinicAdmin);
  const [granted, , blob, emptyBlob, log, dataset, tag, clinicianInvite] = await Promise.all([
    call(app.url, `/access/${owner.userid}/${grantee.userid}`, {
      token: owner.token,
      json: { view: {}, note: {}, upload: {} },
    }),
    addClinician(app, server, clinic.id, clinicMember, ['CLINIC_MEMBER']),
    uploadBlob(app, owner.userid, owner.token),
    call(app.url, `/v1/users/${owner.userid}/blobs`, {
      method: 'POST',
      token: owner.token,
      headers: { 'content-type': 'text/plain' },
    }),
    uploadLog(app, owner.userid, owner.token, WINDOW),
    call(app.url, `/v1/users/${owner.userid}/datasets`, { token: owner.token, json: { dataSetType: 'continuous' } }),
    call(app.url, `/v1/clinics/${clinic.id}/patient_tags`, {
      token: clinicAdmin.token,
      json: { name: `tag-${randomBytes(3).toString('hex')}` },
    }),
    call(app.url, `/v1/clinics/${clinic.id}/invites/clinicians`, {
      token: clinicAdmin.token,
      json: { email: uniqueEmail('invitee'), roles: ['CLINIC_MEMBER'] },
    }),
  ]);
  expectStatus(granted, 'the grant', 200);
  expectStatus(blob, 'the blob upload', 201);
  expectStatus(emptyBlob, 'the empty blob', 201);
  expectStatus(log, 'the device log upload', 201);
  expectStatus(dataset, 'the dataset', 201);
  expectStatus(tag, 'the patient tag', 200);
  expectStatus(clinicianInvite, 'the clinician invite', 200);
  const where = { clinicId: clinic.id, shareCode: clinic.shareCode };
  await Promise.all([becomePatient(app, where, owner), becomePatient(app, where, grantee)]);
  const invites = await pendingPatientInvites(app, clinic.id, clinicAdmin);
  const ownerInvite = invites.find((invite) => JSON.stringify(invite).includes(owner.userid));
  const granteeInvite = invites.find((invite) => JSON.stringify(invite).includes(grantee.userid));
  if (!ownerInvite || !granteeInvite) throw new Error(`fuzz world: invites missing in ${JSON.stringify(invites)}`);
  const accepted = await call(app.url, `/v1/clinics/${clinic.id}/invites/patients/${ownerInvite.key}`, {
    method: 'PUT',
    token: clinicAdmin.token,
  });
  expectStatus(accepted, 'the accepted patient invite', 200);
  return {
    accounts: { owner, grantee, clinicAdmin, clinicMember, outsider },
    tokens: {
      anonymous: undefined,
      forged: `forged.${randomBytes(24).toString('base64url')}`,
      owner: owner.token,
      grantee: grantee.token,
      clinicAdmin: clinicAdmin.token,
      clinicMember: clinicMember.token,
      outsider: outsider.token,
      server,
    },
    clinicId: clinic.id,
    shareCode: clinic.shareCode,
    blobId: blob.body.id,
    emptyBlobId: emptyBlob.body.id,
    deviceLogId: log.body.id,
    datasetId: dataset.body.data.id,
    patientTagId: tag.body.id,
    clinicianInviteId: clinicianInvite.body.inviteId,
    // The grantee's invite stays pending, so invite paths meet a live one.
    patientInviteId: granteeInvite.key,
  };
}

/**
 * Whether a fuzz case that succeeded took something the world needs away: a session ended (a
 * logout, a password change), an account or one of its objects deleted, a role changed.
 */
export async function worldIsIntact(
  app: TestApp,
  world: World,
  query: (sql: string, values: unknown[]) => Promise<Record<string, unknown>[]>,
): Promise<boolean> {
  const accounts = Object.values(world.accounts);
  const [sessions, access, clinic, rows] = await Promise.all([
    Promise.all(accounts.map((account) => call(app.url, '/auth/user', { token: account.token }))),
    call(app.url, `/access/${world.accounts.owner.userid}/${world.accounts.grantee.userid}`, {
      token: world.tokens.server,
    }),
    call(app.url, `/v1/clinics/${world.clinicId}/clinicians/${world.accounts.clinicMember.userid}`, {
      token: world.tokens.server,
    }),
    query(
      `select (select count(*) from blobs where id in ($1, $2))::int
            + (select count(*) from device_logs where id = $3)::int
            + (select count(*) from datasets where id = $4)::int
            + (select count(*) from patient_tags where id = $5)::int
            + (select count(*) from clinician_invites where id = $6)::int
            + (select count(*) from patient_invites where id = $7)::int
            + (select count(*) from clinic_patients where clinic_id = $8 and user_id = $9)::int
            + (select count(*) from clinicians where clinic_id = $8 and user_id = $10 and 'CLINIC_ADMIN' = any(roles))::int
            as present`,
      [
        world.blobId,
        world.emptyBlobId,
        world.deviceLogId,
        world.datasetId,
        world.patientTagId,
        world.clinicianInviteId,
        world.patientInviteId,
        world.clinicId,
        world.accounts.owner.userid,
        world.accounts.clinicAdmin.userid,
      ],
    ),
  ]);
  return (
    sessions.every((reply) => reply.status === 200) &&
    access.status === 200 &&
    clinic.status === 200 &&
    rows[0]?.present === 9
  );
}

/** The world's ids by what they are, for path parameters and id-like fields. */
export function idPools(world: World) {
  const users = Object.values(world.accounts).map((account) => account.userid);
  return {
    users,
    emails: Object.values(world.accounts).map((account) => account.email),
    clinics: [world.clinicId],
    shareCodes: [world.shareCode],
    blobs: [world.blobId, world.emptyBlobId],
    deviceLogs: [world.deviceLogId],
    datasets: [world.datasetId],
    patientTags: [world.patientTagId],
    invites: [world.clinicianInviteId, world.patientInviteId],
    tokens: Object.values(world.tokens).filter((token): token is string => token !== undefined),
    all: [
      ...users,
      world.clinicId,
      world.blobId,
      world.deviceLogId,
      world.datasetId,
      world.patientTagId,
      world.clinicianInviteId,
      world.patientInviteId,
    ],
  };
}
export type IdPools = ReturnType<typeof idPools>;

/** Names the world's ids in a failure message, so a counterexample reads as roles, not hex. */
export function legendOf(world: World): string {
  const names: [string, string][] = [
    ...Object.entries(world.accounts).map(([role, account]): [string, string] => [role, account.userid]),
    ['clinic', world.clinicId],
    ['shareCode', world.shareCode],
    ['blob', world.blobId],
    ['emptyBlob', world.emptyBlobId],
    ['deviceLog', world.deviceLogId],
    ['dataset', world.datasetId],
    ['patientTag', world.patientTagId],
    ['clinicianInvite', world.clinicianInviteId],
    ['patientInvite', world.patientInviteId],
  ];
  return names.map(([name, id]) => `${name}=${id}`).join(' ');
}
