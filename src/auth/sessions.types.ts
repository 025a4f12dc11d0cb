import { Field, ObjectType } from 'type-graphql';
import { User } from '../domains/users/user.types';

@ObjectType({ description: 'A session token and whom it stands for.' })
export class SessionPayload {
  @Field({ description: 'The access token: send it as X-Tidepool-Session-Token or Authorization: Bearer.' })
  token!: string;

  @Field(() => Date)
  expiresAt!: Date;

  @Field({ description: 'The user id, or the client id of a server session.' })
  userid!: string;

  @Field()
  isServer!: boolean;

  @Field(() => User, { nullable: true, description: 'The account; null for server sessions and refreshes.' })
  user!: User | null;
}

@ObjectType({ description: "What a token stands for (Tidepool's TokenData)." })
export class TokenInfo {
  @Field({ description: 'The user id, or the client id of a service token.' })
  userid!: string;

  @Field()
  isserver!: boolean;

  @Field(() => Date)
  expiresAt!: Date;
}
