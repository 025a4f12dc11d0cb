import { compact, jsonObject, withTypes } from '../body';
import type { RestRoute } from '../route';
import { dateTime, object, string } from '../openapi/schemas';

const CONFIRMATION_FIELDS = 'key type status email creatorId created modified context expiresAt';

/** A confirmation as Tidepool's model has it (confirm/models/confirmation.v1.yaml). */
const CONFIRMATION = object(
  {
    key: string('The confirmation’s public id; the key that confirms is in the mail only'),
    type: string('What it confirms'),
    status: { type: 'string', enum: ['pending', 'completed', 'canceled', 'declined'] },
    email: string('The address the key was mailed to'),
    creatorId: string('The account that asked for it'),
    created: dateTime,
    modified: dateTime,
    context: string(),
    expiresAt: dateTime,
  },
  ['key', 'type', 'status', 'email', 'creatorId', 'created', 'expiresAt'],
);

const RESET_BODY = object(
  {
    key: string('The key from the password-reset mail'),
    email: string('The address the mail was sent to'),
    password: string('The new password: 8 to 72 characters, no whitespace'),
  },
  ['key', 'email', 'password'],
);

/**
 * Hydrophone's sign-up verification and password reset ("forgot"). The routes that take an
 * address answer 200 with an empty body whether or not an account has it.
 */
export const confirmAccountRoutes: RestRoute[] = [
  {
    method: 'post',
    path: '/confirm/send/signup/:userId',
    doc: {
      tag: 'Confirmations',
      summary: 'Mail the account a key confirming its address (older keys stop working)',
      description: 'The account itself or a server token. 409 when the address is already verified.',
      response: CONFIRMATION,
      errors: [409, 429],
    },
    document: `mutation ($userId: ID!) { sendSignupConfirmation(userId: $userId) { ${CONFIRMATION_FIELDS} } }`,
    variables: ({ params }) => ({ userId: params.userId }),
    respond: (data) => compact(data.sendSignupConfirmation as Record<string, unknown>),
    status: 200,
  },
  {
    method: 'post',
    path: '/confirm/resend/signup/:email',
    doc: {
      tag: 'Confirmations',
      summary: 'Mail a new sign-up key to the unverified account with this address',
      description:
        'Needs no login. Answers 200 whether or not such an account exists, so it tells nothing about who has an account; a mail over the limits is dropped the same way.',
    },
    document: 'mutation ($email: String!) { resendSignupConfirmation(email: $email) }',
    variables: ({ params }) => ({ email: params.email }),
    status: 200,
  },
  {
    method: 'put',
    path: '/confirm/accept/signup/:key',
    doc: {
      tag: 'Confirmations',
      summary: 'Confirm an account’s address with the key mailed to it (emailVerified becomes true)',
      description: '404 for an unknown, expired or other kind of key; 409 for a key already used or replaced.',
      errors: [409],
    },
    document: 'mutation ($key: String!) { acceptSignupConfirmation(key: $key) }',
    variables: ({ params }) => ({ key: params.key }),
    status: 200,
  },
  {
    method: 'post',
    path: '/confirm/send/forgot/:email',
    doc: {
      tag: 'Confirmations',
      summary: 'Mail a password-reset key to this address if an account logs in with it',
      description:
        'Needs no login. Answers 200 whether or not an account has the address, so it tells nothing about who has an account; a mail over the limits is dropped the same way.',
    },
    document: 'mutation ($email: String!) { sendPasswordReset(email: $email) }',
    variables: ({ params }) => ({ email: params.email }),
    status: 200,
  },
  {
    method: 'put',
    path: '/confirm/accept/forgot',
    doc: {
      tag: 'Confirmations',
      summary: 'Set a new password with the key mailed to the address; every session of the account ends',
      description:
        '404 for an unknown, expired or other kind of key, or an address it was not mailed to; 409 for a key already used.',
      body: {
        schema: RESET_BODY,
        example: { key: 'the-key-from-the-mail', email: 'alex@example.com', password: 'correct-horse-8' },
      },
      errors: [409],
    },
    document: 'mutation ($input: ResetPasswordInput!) { resetPassword(input: $input) }',
    variables: ({ body }) => ({
      input: withTypes(jsonObject(body), { key: 'string', email: 'string', password: 'string' }),
    }),
    status: 200,
  },
];
