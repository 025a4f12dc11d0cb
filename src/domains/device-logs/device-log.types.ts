import { Directive, Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { connectionOf } from '../../graphql/connection';
import { UploadScalar } from '../../graphql/upload';
import type { Upload } from '../../kernel/upload';
import type { DeviceLogRecord } from './device-log.entity';

@ObjectType({
  description:
    'A log uploaded from a diabetes device (a pump, a CGM) covering a time window; its content is the JSON array of entries. Whoever may read its owner’s data (VIEW or CUSTODIAN) may read it.',
})
// A federation entity: other subgraphs reference it by `id` (src/graphql/federation.ts).
@Directive('@key(fields: "id")')
export class DeviceLog {
  @Field(() => ID, { description: 'The log id: 32 lowercase letters or digits.' })
  id!: string;

  @Field(() => ID, { description: 'The owner’s account id.' })
  userId!: string;

  @Field({ description: 'Base64 MD5 digest of the content (24 characters).' })
  digestMD5!: string;

  @Field({ description: 'The media type of the content: always `application/json`.' })
  mediaType!: string;

  @Field(() => Int, { description: 'Size of the content in bytes (at most 100 MiB).' })
  size!: number;

  @Field(() => Date, { description: 'When the log was uploaded.' })
  createdTime!: Date;

  @Field(() => Date, { description: 'Start of the time window the log covers.' })
  startAt!: Date;

  @Field(() => Date, { description: 'End of the time window the log covers.' })
  endAt!: Date;

  @Field(() => Int, { description: 'Counts the changes of the log: 1, logs are not changed after upload.' })
  revision!: number;

  @Field({
    description: 'Where the entries can be downloaded (GET, with the same credentials), relative to the service.',
  })
  contentPath!: string;

  static from(record: DeviceLogRecord): DeviceLog {
    return Object.assign(new DeviceLog(), {
      id: record.id,
      userId: record.userId,
      digestMD5: record.digestMD5,
      mediaType: record.mediaType,
      size: record.size,
      createdTime: record.createdTime,
      startAt: record.startAtTime,
      endAt: record.endAtTime,
      revision: record.revision,
      contentPath: `/v1/device_logs/${record.id}/content`,
    });
  }
}

export const DeviceLogConnection = connectionOf(DeviceLog, 'DeviceLog', 'device log');
export type DeviceLogConnection = InstanceType<typeof DeviceLogConnection>;

@InputType({ description: 'The time window of the device logs to list.' })
export class DeviceLogFilter {
  @Field(() => Date, { description: 'Only logs starting at or after this time.' })
  startAt!: Date;

  @Field(() => Date, { description: 'Only logs ending before this time (exclusive); not before `startAt`.' })
  endAt!: Date;
}

@InputType({ description: 'A device log to upload.' })
export class UploadDeviceLogInput {
  @Field(() => ID, {
    description: 'The owner: the caller, an account it uploads for (UPLOAD or CUSTODIAN), or any with a server token.',
  })
  userId!: string;

  @Field({ description: 'Base64 MD5 of the content: content whose digest differs is refused and nothing is kept.' })
  digestMD5!: string;

  @Field(() => Date, { description: 'Start of the time window the log covers.' })
  startAt!: Date;

  @Field(() => Date, { description: 'End of the time window the log covers; not before `startAt`.' })
  endAt!: Date;

  @Field(() => UploadScalar, {
    description:
      'The content (a multipart file, up to 100 MiB): a JSON array of entries, each checked (type send or receive, a time, a message).',
  })
  content!: Upload;
}

@ObjectType({ description: 'The result of `uploadDeviceLog`.' })
export class UploadDeviceLogPayload {
  @Field(() => DeviceLog, { description: 'The stored log.' })
  deviceLog!: DeviceLog;
}
