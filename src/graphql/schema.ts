import { printSubgraphSchema } from '@apollo/subgraph';
import { lexicographicSortSchema, type GraphQLSchema } from 'graphql';
import { buildSchema, type PubSub } from 'type-graphql';
import type { ResolverBinding } from './bindings';
import { federatedSchema, type EntityBinding } from './federation';
import { DateTimeScalar } from './scalars';

/**
 * Builds the schema as a Federation 2 subgraph: type-graphql types and resolvers (wired with
 * their dependencies) and a reference resolver per entity.
 */
export async function buildIsletSchema(
  bindings: ResolverBinding[],
  entities: readonly EntityBinding[],
  pubSub: PubSub,
): Promise<GraphQLSchema> {
  const instances = new Map(bindings);
  const [first, ...rest] = bindings.map(([resolverClass]) => resolverClass);
  const schema = await buildSchema({
    resolvers: [first, ...rest],
    container: { get: (resolverClass: Function) => instances.get(resolverClass) },
    scalarsMap: [{ type: Date, scalar: DateTimeScalar }],
    pubSub,
    validate: false,
    // Federation directives (`@key`) are defined by the subgraph build, not known to type-graphql.
    skipCheck: true,
  });
  // type-graphql names the root types but cannot describe them; the playground shows these first.
  Object.assign(schema.getQueryType()!, { description: ROOT_DESCRIPTIONS.query });
  Object.assign(schema.getMutationType()!, { description: ROOT_DESCRIPTIONS.mutation });
  Object.assign(schema.getSubscriptionType()!, { description: ROOT_DESCRIPTIONS.subscription });
  return federatedSchema(schema, entities);
}

const ROOT_DESCRIPTIONS = {
  query: [
    'What a caller can read, from `me` (the signed-in account) outward:',
    '- Clinics: `myClinics`, `clinic` (its patients with their glucose summaries, sortable and filterable by TIR, TBR, GMI and the other statistics; the TIDE report `tideReport`; clinicians and invitations; the access log `accessLog`), `clinics`, `clinicsOfClinician`, `clinicByShareCode`, `patientClinics`.',
    '- Patients and glucose: `user` and `users` (an account’s `glucoseSummary` for a period and its `glucoseReadings` in a time range), `dataset`/`datasets` (upload sessions), `dataSources`.',
    '- Sharing: `accessibleGroups`, `groupMembers`, `permissions`, `sentCareTeamInvitations`, `receivedCareTeamInvitations`; invitations to clinics: `clinicianInvites`, `myPatientInvites`.',
    '- Blobs and device logs: `blob`, `blobs`, `deviceLog`, `deviceLogs`; the caller’s token: `tokenInfo`.',
    'Lists that can grow are connections paged with `first` (1 to 100) and `after`.',
  ].join('\n'),
  mutation: [
    'What a caller can change. Each mutation takes one `input` argument and returns a payload named after it.',
    '- Accounts: `signUp`, `logIn`, `logOut`, `refreshSession`, `updateMe`, `updateUser`, `createCustodialUser`, `deleteUser`.',
    '- Confirmations: `sendSignupConfirmation`, `resendSignupConfirmation`, `acceptSignupConfirmation`, `sendPasswordReset`, `resetPassword`.',
    '- Clinics: `createClinic`, `updateClinic`, clinicians (`inviteClinician`, `acceptClinicianInvite`, `updateClinician`, `removeClinician`), patients (`createClinicPatient`, `updateClinicPatient`, `removeClinicPatient`, `reviewClinicPatient`), patient tags, invitations between patients and clinics (`inviteClinic`, `acceptPatientInvite`).',
    '- Sharing: `setPermissions`, care-team invitations (`sendCareTeamInvitation`, `acceptCareTeamInvitation`, `dismissCareTeamInvitation`, `cancelCareTeamInvitation`).',
    '- Data: upload sessions (`createDataset`, `addDatasetData`, `closeDataset`, `deleteDataset`), `rebuildGlucoseSummaries`, blobs (`createBlob`, `addBlobContent`, `deleteBlob`), `uploadDeviceLog`.',
  ].join('\n'),
  subscription: [
    'What a dashboard can follow live: `glucoseSummaryUpdated` (one account’s glucose summaries) and `clinicPatientSummaryUpdated` (those of a clinic’s patients), each within a second of the upload that changed them.',
    'Over WebSocket on /graphql (the graphql-transport-ws protocol of graphql-ws): send the access token as `Authorization: Bearer …` in the connection parameters. The connection closes (4401) when the token expires; reconnect with a fresh one.',
  ].join('\n'),
};

/**
 * The SDL committed as schema.graphql: the subgraph's own types with their `@key` directives
 * (what a gateway composes), sorted, so it only changes when the API does.
 */
export function schemaSdl(schema: GraphQLSchema): string {
  return `${printSubgraphSchema(lexicographicSortSchema(schema))}\n`;
}
