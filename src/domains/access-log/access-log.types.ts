import { Field, ID, InputType, ObjectType, registerEnumType } from 'type-graphql';
import { connectionOf } from '../../graphql/connection';
import type { AccessOutcome } from '../../kernel/access-trail';
import type { AccessLogEntry as AccessLogRecord, AccessLogListOptions } from './access-log.service';

export enum AccessOutcomeValue {
  ALLOWED = 'ALLOWED',
  REFUSED = 'REFUSED',
}

registerEnumType(AccessOutcomeValue, {
  name: 'AccessOutcome',
  description: 'Whether an access to an account’s data was let through.',
  valuesConfig: {
    ALLOWED: { description: 'The caller was allowed and the operation went ahead.' },
    REFUSED: { description: 'The caller was refused (FORBIDDEN); nothing was read or changed.' },
  },
});

@ObjectType({
  description:
    'One read or change of an account’s data or record by someone other than the account itself (a person sharing, a clinician, a custodian, a server). Entries are never changed or removed, except after the retention period; they name accounts and clinics by id, so they outlive them.',
})
export class AccessLogEntry {
  @Field(() => ID, { description: 'The entry id; larger ids are newer.' })
  id!: string;

  @Field(() => Date, { description: 'When access was decided.' })
  at!: Date;

  @Field(() => ID, { description: 'The account whose data or record was read or changed.' })
  userId!: string;

  @Field(() => ID, {
    nullable: true,
    description: 'The account that acted; null for a server token or a client acting for no account.',
  })
  accessorUserId!: string | null;

  @Field(() => String, {
    nullable: true,
    description:
      'The acting account’s login name, shown for allowed accesses (someone the account shared with, a custodian, a clinician of a clinic it shares with) and to server tokens; null otherwise, or once that account is deleted.',
  })
  accessorName!: string | null;

  @Field({ description: 'Whether a server (backend service) token acted.' })
  accessorIsServer!: boolean;

  @Field(() => String, { nullable: true, description: 'The OAuth client the token was issued to.' })
  clientId!: string | null;

  @Field(() => ID, {
    nullable: true,
    description:
      'The clinic through which the accessor was let in (a clinician using the clinic’s share); null otherwise.',
  })
  clinicId!: string | null;

  @Field({
    description:
      'What was done: the GraphQL root field (`blobs`, `createBlob`) or REST route (`GET /v1/users/:userId/blobs`) served.',
  })
  operation!: string;

  @Field(() => [ID], {
    description: 'The objects of the account the operation named (a blob, device log, dataset); may be empty.',
  })
  objectIds!: string[];

  @Field(() => AccessOutcomeValue, { description: 'Whether the access was allowed or refused.' })
  outcome!: AccessOutcome;

  @Field(() => String, { description: 'The id of the request, as its answer and the service’s log carry it.' })
  requestId!: string;

  static from(record: AccessLogRecord): AccessLogEntry {
    const { subjectId, ...rest } = record;
    return Object.assign(new AccessLogEntry(), { ...rest, userId: subjectId });
  }
}

export const AccessLogConnection = connectionOf(AccessLogEntry, 'AccessLog', 'access record');
export type AccessLogConnection = InstanceType<typeof AccessLogConnection>;

@InputType({ description: 'Which access log entries to list; omitted fields do not filter.' })
export class AccessLogFilter {
  @Field(() => AccessOutcomeValue, { nullable: true, description: 'Only allowed, or only refused, accesses.' })
  outcome?: AccessOutcomeValue | null;

  @Field(() => Date, { nullable: true, description: 'Only entries at or after this instant.' })
  startAt?: Date | null;

  @Field(() => Date, {
    nullable: true,
    description: 'Only entries before this instant; after `startAt` when both are given.',
  })
  endAt?: Date | null;

  static options(filter: AccessLogFilter | null, first?: number | null, after?: string | null): AccessLogListOptions {
    return {
      filter: filter && { outcome: filter.outcome, startAt: filter.startAt, endAt: filter.endAt },
      first,
      after,
    };
  }
}
