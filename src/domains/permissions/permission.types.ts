import { Field, ID, ObjectType, registerEnumType } from 'type-graphql';
import { User } from '../users/user.types';
import type { PermissionName, Share as ShareRecord } from './permissions.service';

/** Permission names as the legacy API spells them: lower case. */
export enum PermissionNameValue {
  root = 'root',
  custodian = 'custodian',
  view = 'view',
  upload = 'upload',
  note = 'note',
}

registerEnumType(PermissionNameValue, {
  name: 'PermissionName',
  description: 'root belongs to the account owner alone and is never granted',
  valuesConfig: {
    custodian: { description: 'full control of an account someone else manages' },
    view: { description: 'read diabetes data' },
    upload: { description: 'upload diabetes data' },
    note: { description: 'read and write notes' },
  },
});

@ObjectType({ description: 'One entry of a permission group: another user and the permissions between the two.' })
export class Share {
  @Field(() => ID)
  userid!: string;

  @Field(() => [PermissionNameValue])
  permissions!: PermissionName[];

  @Field(() => User, { nullable: true, description: 'The account, or null when the caller may not read it.' })
  user?: User | null;

  static from(record: ShareRecord): Share {
    return Object.assign(new Share(), record);
  }
}
