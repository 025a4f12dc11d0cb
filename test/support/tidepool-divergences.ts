/**
 * Where Islet deliberately answers otherwise than Tidepool's OpenAPI files say, each with its
 * reason. Reply validation against Tidepool's files skips exactly these; the table
 * of docs/rest-compat.md "Deliberate divergences from Tidepool's OpenAPI files" lists the same rows (a test checks it).
 */
export interface Divergence {
  /** Tidepool's operation, `file#operationId`, or `*` for every operation Islet shares with Tidepool. */
  operation: string;
  /** The status it concerns, or `errors` for every 4xx and 5xx answer. */
  status: number | 'errors';
  /**
   * What is not checked: `status` (a status Tidepool does not declare is accepted; a declared
   * one is still checked), `body`, `header:<Name>`, or a JSON pointer into the body (`*` for any
   * array index or key; a missing property counts as at its own place), below which differences
   * are allowed.
   */
  skip: 'status' | 'body' | `header:${string}` | `/${string}`;
  reason: string;
}

const NO_CONTENT_YET =
  "A blob created without content (the specification's `created` state) has no digest or size until content is added";

const NOT_AN_ACCOUNT =
  "A token not issued to an account (a server's, or an OAuth client's from the client_credentials grant) names that server or client, not a user id";
const NO_BGM_EXTREME_HIGH_RECORDS =
  'BGM summaries keep no count of extreme-high records (`BGM_STAT_NAMES` leaves it out), so its flag is absent';

const INVITATION_KEY =
  "An invitation's key is its id (24 hexadecimal characters), by which it is accepted, declined or revoked; Tidepool's confirmation keys are 32 characters";
const INVITATION_CREATOR =
  'An invitation names the clinic that sent it (`creator: {clinicId, clinicName}`); Islet does not record which of its admins did';

const NO_BIRTH_DATE =
  'Islet keeps no user profiles: a patient who joined by invitation, or was added without one, has `birthDate: null` until the clinic records it';

export const TIDEPOOL_DIVERGENCES: readonly Divergence[] = [
  {
    operation: '*',
    status: 'errors',
    skip: 'status',
    reason:
      "Tidepool's files leave out statuses Islet answers on every operation: 400 naming bad input, 401 without credentials (also where Tidepool says 400), 404 for unknown ids, 409, 413, 415, 503 when a dependency is down",
  },
  {
    operation: '*',
    status: 'errors',
    skip: 'body',
    reason:
      "Every REST error answers the specification's `{code, reason, error}`, whose reason names the field and rule; Tidepool's services differ (fixed reason texts in auth, `{code, message}` in the platform)",
  },
  {
    operation: 'auth.v1.yaml#DeleteUser',
    status: 204,
    skip: 'status',
    reason: 'The specification answers a deletion with 204 No Content, where Tidepool says 202',
  },
  {
    operation: 'auth.v1.yaml#CheckSessionToken',
    status: 200,
    skip: 'header:X-Tidepool-Session-Token',
    reason: 'Checking a token issues none: the token is the one the caller sent',
  },
  {
    operation: 'access.v1.yaml#GrantPermissionsInGroup',
    status: 200,
    skip: 'body',
    reason: 'Setting `{}` removes the grant and answers the now empty set `{}`',
  },
  {
    operation: 'blob.v1.yaml#CreateBlob',
    status: 201,
    skip: '/digestMD5',
    reason: NO_CONTENT_YET,
  },
  {
    operation: 'blob.v1.yaml#CreateBlob',
    status: 201,
    skip: '/size',
    reason: NO_CONTENT_YET,
  },
  {
    operation: 'blob.v1.yaml#GetBlobMetadata',
    status: 200,
    skip: '/digestMD5',
    reason: NO_CONTENT_YET,
  },
  {
    operation: 'blob.v1.yaml#GetBlobMetadata',
    status: 200,
    skip: '/size',
    reason: NO_CONTENT_YET,
  },
  {
    operation: 'blob.v1.yaml#ListBlobs',
    status: 200,
    skip: '/*/digestMD5',
    reason: NO_CONTENT_YET,
  },
  {
    operation: 'blob.v1.yaml#ListBlobs',
    status: 200,
    skip: '/*/size',
    reason: NO_CONTENT_YET,
  },
  {
    operation: 'auth.v1.yaml#CheckSessionToken',
    status: 200,
    skip: '/userid',
    reason: NOT_AN_ACCOUNT,
  },
  {
    operation: 'auth.v1.yaml#ServerCheckToken',
    status: 200,
    skip: '/userid',
    reason: NOT_AN_ACCOUNT,
  },
  {
    operation: 'clinic.v1.yaml#ListPatients',
    status: 200,
    skip: '/data/*/summary/bgmStats/periods/*/hasTimeInExtremeHighRecords',
    reason: NO_BGM_EXTREME_HIGH_RECORDS,
  },
  {
    operation: 'clinic.v1.yaml#GetPatient',
    status: 200,
    skip: '/summary/bgmStats/periods/*/hasTimeInExtremeHighRecords',
    reason: NO_BGM_EXTREME_HIGH_RECORDS,
  },
  {
    operation: 'clinic.v1.yaml#ListClinicsForPatient',
    status: 200,
    skip: '/*/patient/summary/bgmStats/periods/*/hasTimeInExtremeHighRecords',
    reason: NO_BGM_EXTREME_HIGH_RECORDS,
  },
  {
    operation: 'clinic.v1.yaml#GetClinicianInvite',
    status: 200,
    skip: '/key',
    reason: INVITATION_KEY,
  },
  {
    operation: 'clinic.v1.yaml#GetClinicianInvite',
    status: 200,
    skip: '/creator',
    reason: INVITATION_CREATOR,
  },
  {
    operation: 'clinic.v1.yaml#GetClinicianInvite',
    status: 200,
    skip: '/creatorId',
    reason: INVITATION_CREATOR,
  },
  {
    operation: 'clinic.v1.yaml#ResendInvite',
    status: 200,
    skip: '/key',
    reason: INVITATION_KEY,
  },
  {
    operation: 'clinic.v1.yaml#ResendInvite',
    status: 200,
    skip: '/creator',
    reason: INVITATION_CREATOR,
  },
  {
    operation: 'clinic.v1.yaml#ResendInvite',
    status: 200,
    skip: '/creatorId',
    reason: INVITATION_CREATOR,
  },
  {
    operation: 'clinic.v1.yaml#ListClinicianInvites',
    status: 200,
    skip: '/*/key',
    reason: INVITATION_KEY,
  },
  {
    operation: 'clinic.v1.yaml#ListClinicianInvites',
    status: 200,
    skip: '/*/creator',
    reason: INVITATION_CREATOR,
  },
  {
    operation: 'clinic.v1.yaml#ListClinicianInvites',
    status: 200,
    skip: '/*/creatorId',
    reason: INVITATION_CREATOR,
  },
  {
    operation: 'auth.v1.yaml#ServerCheckToken',
    status: 200,
    skip: 'header:X-Tidepool-Session-Token',
    reason: 'Checking a token issues none: the token is the one the caller sent',
  },
  {
    operation: 'clinic.v1.yaml#ListPatients',
    status: 200,
    skip: '/data/*/birthDate',
    reason: NO_BIRTH_DATE,
  },
  {
    operation: 'clinic.v1.yaml#GetPatient',
    status: 200,
    skip: '/birthDate',
    reason: NO_BIRTH_DATE,
  },
  {
    operation: 'clinic.v1.yaml#ListClinicsForPatient',
    status: 200,
    skip: '/*/patient/birthDate',
    reason: NO_BIRTH_DATE,
  },
  {
    operation: 'clinic.v1.yaml#TideReport',
    status: 200,
    skip: '/config/filters/dropInTimeInTargetPercent',
    reason:
      "Tidepool's pattern has no sign, yet the drop in time in target is negative (`<-0.15`, as Tidepool's clinic service answers)",
  },
];
