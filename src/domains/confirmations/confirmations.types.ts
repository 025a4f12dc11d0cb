import { Field, ID, InputType, ObjectType } from 'type-graphql';
import type { ConfirmationRecord } from './confirmation.entity';
import { toTidepoolConfirmation, type TidepoolExtras } from './tidepool-shape';

@ObjectType({
  description:
    'Something an email address is asked to confirm with a key mailed to it (a sign-up, a password reset, an invitation), in Tidepool’s confirmation shape. The mailed key itself is never shown: `key` is the confirmation’s public id.',
})
export class Confirmation {
  @Field(() => ID, { description: 'The confirmation’s public id (32 characters); not the key that was mailed.' })
  key!: string;

  @Field(() => String, {
    description:
      'What it confirms: password_reset, careteam_invitation, clinician_invitation, signup_confirmation or no_account.',
  })
  type!: string;

  @Field(() => String, { description: 'pending, completed, canceled or declined; only pending ones can be acted on.' })
  status!: string;

  @Field(() => String, { description: 'The address the key was mailed to, lower-cased.' })
  email!: string;

  @Field(() => String, { description: 'The account that asked for it.' })
  creatorId!: string;

  @Field(() => Date, { description: 'When it was made.' })
  created!: string;

  @Field(() => Date, { nullable: true, description: 'When it last changed status; null while pending.' })
  modified?: string;

  @Field(() => String, { nullable: true, description: 'What it carries for its type, as a JSON string.' })
  context?: string;

  @Field(() => Date, { description: 'When its key stops working.' })
  expiresAt!: string;

  static from(record: ConfirmationRecord, extras?: TidepoolExtras): Confirmation {
    return Object.assign(new Confirmation(), toTidepoolConfirmation(record, extras));
  }
}

@InputType({ description: 'A new password, with the key mailed to the account’s address and that address.' })
export class ResetPasswordInput {
  @Field(() => String, { description: 'The key from the password-reset mail.' })
  key!: string;

  @Field(() => String, { description: 'The address the mail was sent to.' })
  email!: string;

  @Field(() => String, { description: 'The new password: 8 to 72 characters, no whitespace.' })
  password!: string;
}
