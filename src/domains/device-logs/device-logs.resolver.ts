import { Arg, Args, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { OffsetPageArgs } from '../../graphql/connection';
import { incomingContent } from '../../kernel/upload';
import type { Scope } from '../../kernel/scope';
import { User } from '../users/user.types';
import {
  DeviceLog,
  DeviceLogConnection,
  DeviceLogFilter,
  UploadDeviceLogInput,
  UploadDeviceLogPayload,
} from './device-log.types';
import { DEVICE_LOG_MEDIA_TYPE, DeviceLogsService } from './device-logs.service';

const FILTER = { description: 'The time window: logs inside it are listed.' };

@Resolver(() => DeviceLog)
export class DeviceLogsResolver {
  constructor(private readonly logs: DeviceLogsService) {}

  @Query(() => DeviceLog, {
    nullable: true,
    description:
      'A device log by id. Whoever may read its owner’s data (VIEW or CUSTODIAN) may read it; otherwise null with FORBIDDEN, or NOT_FOUND when there is no such log.',
  })
  async deviceLog(
    @Arg('id', () => ID, { description: 'The log id: 32 lowercase letters or digits.' }) id: string,
    @Ctx() scope: Scope,
  ): Promise<DeviceLog> {
    return DeviceLog.from(await this.logs.get(scope, id));
  }

  @Query(() => DeviceLogConnection, {
    description:
      'The device logs of a user inside a time window, newest upload first. Whoever may read the user’s data (VIEW or CUSTODIAN) may list them; others get FORBIDDEN.',
  })
  async deviceLogs(
    @Arg('userId', () => ID, { description: 'The owner.' }) userId: string,
    @Arg('filter', () => DeviceLogFilter, FILTER) filter: DeviceLogFilter,
    @Args() paging: OffsetPageArgs,
    @Ctx() scope: Scope,
  ): Promise<DeviceLogConnection> {
    const window = { startAtTime: filter.startAt, endAtTime: filter.endAt, ...paging };
    return DeviceLogConnection.of(await this.logs.list(scope, userId, window), DeviceLog.from);
  }

  @Mutation(() => UploadDeviceLogPayload, {
    description: 'Uploads a device log: a JSON array of entries, checked entry by entry and against `digestMD5`.',
  })
  async uploadDeviceLog(
    @Arg('input', () => UploadDeviceLogInput, { description: 'The owner, the window and the content.' })
    input: UploadDeviceLogInput,
    @Ctx() scope: Scope,
  ): Promise<UploadDeviceLogPayload> {
    // Multipart parts rarely carry a reliable type; the entries are JSON by definition.
    const upload = {
      digestMD5: input.digestMD5,
      startAtTime: input.startAt,
      endAtTime: input.endAt,
      content: await incomingContent(input.content, DEVICE_LOG_MEDIA_TYPE),
    };
    return Object.assign(new UploadDeviceLogPayload(), {
      deviceLog: DeviceLog.from(await this.logs.upload(scope, input.userId, upload)),
    });
  }
}

/** Device logs as seen from an account. */
@Resolver(() => User)
export class UserDeviceLogsResolver {
  constructor(private readonly logs: DeviceLogsService) {}

  @FieldResolver(() => DeviceLogConnection, {
    description:
      'The device logs of this account inside a time window, newest upload first; an empty list for callers without a share from it.',
  })
  async deviceLogs(
    @Root() user: User,
    @Arg('filter', () => DeviceLogFilter, FILTER) filter: DeviceLogFilter,
    @Args() paging: OffsetPageArgs,
    @Ctx() scope: Scope,
  ): Promise<DeviceLogConnection> {
    const window = { startAtTime: filter.startAt, endAtTime: filter.endAt, ...paging };
    return DeviceLogConnection.of(await this.logs.listOf(scope, user.userId, window), DeviceLog.from);
  }
}
