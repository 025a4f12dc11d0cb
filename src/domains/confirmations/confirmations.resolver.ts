import { Arg, Ctx, ID, Mutation, Resolver } from 'type-graphql';
import type { Scope } from '../../kernel/scope';
import { Confirmation, ResetPasswordInput } from './confirmations.types';
import { PasswordResetsService } from './password-resets.service';
import { SignupConfirmationsService } from './signup-confirmations.service';

/** Sign-up verification and password reset by mail (Tidepool hydrophone's signup and forgot routes). */
@Resolver()
export class AccountConfirmationsResolver {
  constructor(
    private readonly signups: SignupConfirmationsService,
    private readonly resets: PasswordResetsService,
  ) {}

  @Mutation(() => Confirmation, {
    description:
      'Mails a key confirming the account’s address (its username, else its first email); older keys stop working. The account itself or a server token; CONFLICT when already verified.',
  })
  async sendSignupConfirmation(
    @Arg('userId', () => ID, { description: 'The account.' }) userId: string,
    @Ctx() scope: Scope,
  ): Promise<Confirmation> {
    return Confirmation.from(await this.signups.send(scope, userId));
  }

  @Mutation(() => Boolean, {
    description:
      'Mails a new sign-up key to an unverified account with this address. Needs no login, and answers true whether or not such an account exists (or its mail was refused by the limits), so it tells nothing about who has an account.',
  })
  async resendSignupConfirmation(
    @Arg('email', () => String, { description: 'The account’s address.' }) email: string,
    @Ctx() scope: Scope,
  ): Promise<boolean> {
    await this.signups.resend(scope, email);
    return true;
  }

  @Mutation(() => Boolean, {
    description:
      'Confirms an account’s address with the key mailed to it: its emailVerified becomes true. NOT_FOUND for an unknown, expired or other kind of key; CONFLICT for a key already used or replaced.',
  })
  async acceptSignupConfirmation(
    @Arg('key', () => String, { description: 'The key from the mail.' }) key: string,
    @Ctx() scope: Scope,
  ): Promise<boolean> {
    await this.signups.accept(scope, key);
    return true;
  }

  @Mutation(() => Boolean, {
    description:
      'Mails a password-reset key to this address if an account logs in with it. Needs no login, and answers true either way (also when the mail was refused by the limits), so it tells nothing about who has an account.',
  })
  async sendPasswordReset(
    @Arg('email', () => String, { description: 'The account’s address.' }) email: string,
    @Ctx() scope: Scope,
  ): Promise<boolean> {
    await this.resets.send(scope, email);
    return true;
  }

  @Mutation(() => Boolean, {
    description:
      'Sets a new password with the key mailed to the address; every session and refresh token of the account ends. NOT_FOUND for an unknown, expired or other kind of key or another address; CONFLICT for a key already used.',
  })
  async resetPassword(
    @Arg('input', () => ResetPasswordInput, { description: 'The key, the address and the new password.' })
    input: ResetPasswordInput,
    @Ctx() scope: Scope,
  ): Promise<boolean> {
    await this.resets.accept(scope, input);
    return true;
  }
}

/** Mutations that act on a mailed key or address, not as the caller: a stale token is ignored, not refused. */
export const CONFIRMATION_CREDENTIAL_FREE_MUTATIONS = [
  'resendSignupConfirmation',
  'acceptSignupConfirmation',
  'sendPasswordReset',
  'resetPassword',
] as const;
