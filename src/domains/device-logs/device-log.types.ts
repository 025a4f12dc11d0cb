import { Field, ID, Int, ObjectType } from 'type-graphql';
import type { DeviceLogRecord } from './device-log.entity';

@ObjectType({ description: 'An uploaded device log (spec §2.6); its entries are the content.' })
export class DeviceLog {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  userId!: string;

  @Field()
  digestMD5!: string;

  @Field()
  mediaType!: string;

  @Field(() => Int)
  size!: number;

  @Field(() => Date)
  createdTime!: Date;

  @Field(() => Date, { description: 'Start of the time window the log covers.' })
  startAt!: Date;

  @Field(() => Date, { description: 'End of the time window the log covers.' })
  endAt!: Date;

  @Field(() => Int)
  revision!: number;

  @Field({ description: 'Where the entries can be downloaded (GET, with the same credentials).' })
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
