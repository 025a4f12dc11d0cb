import type { EntityManager } from '@mikro-orm/postgresql';
import type { Readable } from 'node:stream';
import type { AfterCommit, ContentStore } from '../../infra/content/content-store';
import type { OwnerAccounts } from '../../kernel/accounts';
import { assertDigestMD5, relay, type ContentFacts, type IncomingContent } from '../../kernel/content';
import { invalid, notFound, unauthenticated } from '../../kernel/errors';
import { hexId } from '../../kernel/ids';
import { isAuthenticated } from '../../kernel/principal';
import type { CountedObjects } from '../../kernel/quota';
import type { Scope } from '../../kernel/scope';
import { assertUserId } from '../../kernel/validation';
import { assertBlobId, BLOB_ID_PATTERN } from '../blobs/blobs.service';
import { isTimeAndIdKey, pageArgs, pageOf, type PageArgs, type PagedList } from '../../kernel/paging';
import { MAY_READ_DATA, type AccessPolicy, type Requirement } from '../permissions/access-policy';
import type { DeviceLogRecord } from './device-log.entity';
import { logCounts, logPages } from './device-logs.loaders';
import { findLog, insertLog, removeLogsOf, type LogWindow } from './device-logs.repository';
import { EntryValidator } from './entry-validator';

/** docs/decisions.md, access rules: uploaders and custodians may upload; `view` or custodian reads. */
const MAY_UPLOAD: Requirement = ['upload', 'custodian'];
const MAY_READ: Requirement = MAY_READ_DATA;
export const DEVICE_LOG_MEDIA_TYPE = 'application/json';

export interface DeviceLogUpload {
  digestMD5: string;
  startAtTime: Date;
  endAtTime: Date;
  content: IncomingContent;
}

export interface DeviceLogWindow {
  startAtTime: Date;
  endAtTime: Date;
  first?: number | null;
  after?: string | null;
  offset?: number | null;
}

/** A log list's sort key: the created time (ISO 8601) and the id. */
const isLogKey = isTimeAndIdKey(BLOB_ID_PATTERN);

/** What DEVICE_LOG_QUOTA counts. */
const DEVICE_LOGS: CountedObjects = { kind: 'deviceLogs', table: 'device_logs', name: 'device logs' };

/** Cursors of one user's log list fit no other list. */
const logListOf = (userId: string) => `deviceLogs:${userId}`;

/** Device logs (spec §2.5–2.6, §4.7): validated JSON arrays of entries, stored as uploaded. */
export class DeviceLogsService {
  constructor(
    private readonly access: AccessPolicy,
    private readonly accounts: OwnerAccounts,
    private readonly contents: ContentStore,
  ) {}

  async upload(scope: Scope, userId: string, upload: DeviceLogUpload): Promise<DeviceLogRecord> {
    assertUserId(userId);
    await this.access.assertAllowed(scope, userId, MAY_UPLOAD);
    const digest = assertDigestMD5(upload.digestMD5);
    if (upload.startAtTime > upload.endAtTime)
      throw invalid('startAtTime must not be later than endAtTime', 'startAtTime');
    if (!/^application\/json\s*(;|$)/i.test(upload.content.mediaType))
      throw invalid(`A device log is JSON: its media type must be ${DEVICE_LOG_MEDIA_TYPE}`, 'mediaType');
    await this.accounts.assertExists(scope, userId);
    await this.accounts.assertRoom(scope.em, userId, DEVICE_LOGS);

    const id = hexId(32);
    const objectKey = `device-logs/${userId}/${id}`;
    const stream = relay(upload.content.stream, new EntryValidator());
    const content = { ...upload.content, stream, mediaType: DEVICE_LOG_MEDIA_TYPE };
    const recordLog = async (tx: EntityManager, facts: ContentFacts) => {
      await this.accounts.assertHeld(tx, userId);
      await this.accounts.holdRoom(tx, userId, DEVICE_LOGS);
      const record: DeviceLogRecord = {
        id,
        userId,
        ...facts,
        mediaType: DEVICE_LOG_MEDIA_TYPE,
        objectKey,
        startAtTime: upload.startAtTime,
        endAtTime: upload.endAtTime,
        createdTime: new Date(),
        revision: 1,
      };
      await insertLog(tx, record);
      return record;
    };
    return this.accounts.uploading(userId, () => this.contents.write(scope.em, objectKey, content, digest, recordLog));
  }

  /**
   * A page of the logs of `userId` lying inside the window, newest upload first. As Tidepool: a
   * log starts at or after `startAtTime` and ends before `endAtTime` (the end is exclusive).
   * Whoever may read the user's data (MAY_READ_DATA) may read them.
   */
  async list(scope: Scope, userId: string, window: DeviceLogWindow): Promise<PagedList<DeviceLogRecord>> {
    assertUserId(userId);
    const checked = this.window(window);
    const args = pageArgs(logListOf(userId), window.first, window.after, isLogKey, window.offset);
    await this.access.assertAllowed(scope, userId, MAY_READ);
    return this.page(scope, userId, checked, args);
  }

  /**
   * The same for one of many users listed in a request (pages of many users cost one query
   * together); a user the caller may not read lists nothing.
   */
  async listOf(scope: Scope, userId: string, window: DeviceLogWindow): Promise<PagedList<DeviceLogRecord>> {
    const checked = this.window(window);
    const args = pageArgs(logListOf(userId), window.first, window.after, isLogKey, window.offset);
    if (!(await this.access.isAllowed(scope, userId, MAY_READ))) {
      return { page: pageOf(logListOf(userId), args, [], () => []), count: async () => 0 };
    }
    return this.page(scope, userId, checked, args);
  }

  private async page(
    scope: Scope,
    userId: string,
    window: LogWindow,
    args: PageArgs,
  ): Promise<PagedList<DeviceLogRecord>> {
    const rows = await logPages(scope, window, args).load(userId);
    return {
      page: pageOf(logListOf(userId), args, rows, (log) => [log.createdTime.toISOString(), log.id]),
      count: () => logCounts(scope, window).load(userId),
    };
  }

  private window(window: DeviceLogWindow): LogWindow {
    if (window.startAtTime > window.endAtTime)
      throw invalid('startAtTime must not be later than endAtTime', 'startAtTime');
    return { startAtTime: window.startAtTime, endAtTime: window.endAtTime };
  }

  /** A log's metadata: 404 when unknown, 403 when the caller may not read its owner's data. */
  async get(scope: Scope, id: string): Promise<DeviceLogRecord> {
    const log = await this.find(scope, id);
    await this.access.assertAllowed(scope, { userId: log.userId, objectIds: [id] }, MAY_READ);
    return log;
  }

  /** A log's bytes; to a caller who may not read them they do not exist (Tidepool hides them with 404). */
  async openContent(scope: Scope, id: string): Promise<{ log: DeviceLogRecord; stream: Readable }> {
    const log = await this.find(scope, id);
    await this.access.assertAllowed(scope, { userId: log.userId, objectIds: [id] }, MAY_READ, () =>
      notFound(`Device log ${id} does not exist`),
    );
    return { log, stream: await this.contents.open(log.objectKey) };
  }

  /** Account deletion, inside its transaction: every log record now, the bytes once it commits. */
  async forgetUser(scope: Scope, userId: string): Promise<AfterCommit> {
    return this.contents.removeWithin(scope.em, await removeLogsOf(scope.em, userId));
  }

  private async find(scope: Scope, id: string): Promise<DeviceLogRecord> {
    assertBlobId(id, 'id');
    if (!isAuthenticated(scope.principal)) throw unauthenticated();
    const log = await findLog(scope.em, id);
    if (!log) throw notFound(`Device log ${id} does not exist`);
    return log;
  }
}
