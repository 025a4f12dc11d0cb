import { Field, ID, InputType, ObjectType, registerEnumType } from 'type-graphql';
import { connectionOf } from '../../graphql/connection';
import { User } from '../users/user.types';
import type { PermissionName, Share as ShareRecord } from './permissions.service';

/** Permission names: UPPER_SNAKE_CASE in GraphQL, the lowercase names of the domain inside. */
export enum PermissionNameValue {
  ROOT = 'root',
  CUSTODIAN = 'custodian',
  VIEW = 'view',
  UPLOAD = 'upload',
  NOTE = 'note',
}

registerEnumType(PermissionNameValue, {
  name: 'PermissionName',
  description: 'What one account may do with the data of another (the sharer).',
  valuesConfig: {
    ROOT: { description: 'The account owner itself: everything. Never granted to anyone else.' },
    CUSTODIAN: {
      description: 'Full control of the account, as its owner: custodians manage accounts such as a child’s.',
    },
    VIEW: { description: 'Read the sharer’s diabetes data and device logs.' },
    UPLOAD: {
      description: 'Upload diabetes data, blobs and device logs for the sharer; alone it reads nothing (VIEW does).',
    },
    NOTE: { description: 'Read and write notes about the sharer; alone it reads none of its data.' },
  },
});

// Plain data read as properties (simpleResolvers); `user` keeps its field resolver.
@ObjectType({
  simpleResolvers: true,
  description: 'One share between two accounts: the other account and the permissions the sharer grants.',
})
export class Share {
  @Field(() => ID, { description: 'The other account of the share (the grantee, or the sharer, by the list).' })
  userId!: string;

  @Field(() => [PermissionNameValue], { description: 'What the grantee may do, in a fixed order (custodian first).' })
  permissions!: PermissionName[];

  @Field(() => User, {
    nullable: true,
    description: 'The other account, or null when the caller may not read it (it is not its owner or custodian).',
  })
  user?: User | null;

  static from(record: ShareRecord): Share {
    return Object.assign(new Share(), record);
  }
}

export const ShareConnection = connectionOf(Share, 'Share', 'share');
export type ShareConnection = InstanceType<typeof ShareConnection>;

@InputType({ description: 'What a grantee may do with a sharer’s data.' })
export class SetPermissionsInput {
  @Field(() => ID, { description: 'The account whose data is shared.' })
  sharerId!: string;

  @Field(() => ID, { description: 'The account that gets (or loses) the permissions.' })
  userId!: string;

  @Field(() => [PermissionNameValue], {
    description: 'The permissions to hold from now on, replacing the previous ones; empty removes the share. Not ROOT.',
  })
  permissions!: PermissionName[];
}

@ObjectType({ description: 'The result of `setPermissions`.' })
export class SetPermissionsPayload {
  @Field(() => ID, { description: 'The sharer.' })
  sharerId!: string;

  @Field(() => ID, { description: 'The grantee.' })
  userId!: string;

  @Field(() => [PermissionNameValue], { description: 'What the grantee holds now; empty when the share was removed.' })
  permissions!: PermissionName[];
}
