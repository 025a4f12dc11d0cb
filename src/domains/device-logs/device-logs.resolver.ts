import { Arg, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { incomingContent, Upload, UploadScalar } from '../../graphql/upload';
import type { Scope } from '../../kernel/scope';
import { User } from '../users/user.types';
import { DeviceLog } from './device-log.types';
import { DEVICE_LOG_MEDIA_TYPE, DeviceLogsService } from './device-logs.service';

@Resolver(() => DeviceLog)
export class DeviceLogsResolver {
  constructor(private readonly logs: DeviceLogsService) {}

  @Query(() => DeviceLog, { description: 'A device log; anyone with a grant on its owner may read it.' })
  async deviceLog(@Arg('id', () => ID) id: string, @Ctx() scope: Scope): Promise<DeviceLog> {
    return DeviceLog.from(await this.logs.get(scope, id));
  }

  @Query(() => [DeviceLog], {
    description:
      'The logs of a user starting at or after startAtTime and ending before endAtTime, newest upload first.',
  })
  async deviceLogs(
    @Arg('userId', () => ID) userId: string,
    @Arg('startAtTime', () => Date) startAtTime: Date,
    @Arg('endAtTime', () => Date) endAtTime: Date,
    @Arg('page', () => Int, { nullable: true }) page: number | null,
    @Arg('size', () => Int, { nullable: true }) size: number | null,
    @Ctx() scope: Scope,
  ): Promise<DeviceLog[]> {
    const window = { startAtTime, endAtTime, page: page ?? 0, size: size ?? undefined };
    return (await this.logs.list(scope, userId, window)).map(DeviceLog.from);
  }

  @Mutation(() => DeviceLog, {
    description:
      'Uploads a device log: a JSON array of entries (spec §2.5), checked entry by entry and against `digestMD5`.',
  })
  async uploadDeviceLog(
    @Arg('userId', () => ID) userId: string,
    @Arg('digestMD5') digestMD5: string,
    @Arg('startAtTime', () => Date) startAtTime: Date,
    @Arg('endAtTime', () => Date) endAtTime: Date,
    @Arg('content', () => UploadScalar) content: Upload,
    @Ctx() scope: Scope,
  ): Promise<DeviceLog> {
    // Multipart parts rarely carry a reliable type; the entries are JSON by definition.
    const upload = {
      digestMD5,
      startAtTime,
      endAtTime,
      content: await incomingContent(content, DEVICE_LOG_MEDIA_TYPE),
    };
    return DeviceLog.from(await this.logs.upload(scope, userId, upload));
  }
}

/** Device logs as seen from an account. */
@Resolver(() => User)
export class UserDeviceLogsResolver {
  constructor(private readonly logs: DeviceLogsService) {}

  @FieldResolver(() => [DeviceLog], {
    description:
      'The logs of this account starting at or after startAtTime and ending before endAtTime; empty for callers without a grant.',
  })
  async deviceLogs(
    @Root() user: User,
    @Arg('startAtTime', () => Date) startAtTime: Date,
    @Arg('endAtTime', () => Date) endAtTime: Date,
    @Arg('page', () => Int, { nullable: true }) page: number | null,
    @Arg('size', () => Int, { nullable: true }) size: number | null,
    @Ctx() scope: Scope,
  ): Promise<DeviceLog[]> {
    const window = { startAtTime, endAtTime, page: page ?? 0, size: size ?? undefined };
    const [list] = await this.logs.listMany(scope, [user.userid], window);
    return list.map(DeviceLog.from);
  }
}
