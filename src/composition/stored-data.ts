import type { EntityManager } from '@mikro-orm/postgresql';
import type { Services } from '../service-catalog';
import { ownerAccounts } from '../kernel/accounts';
import type { Scope } from '../kernel/scope';
import { UploadsInFlight } from '../kernel/uploads-in-flight';
import { ContentStore } from '../infra/content/content-store';
import { BlobsService } from '../domains/blobs/blobs.service';
import { DeviceLogsService } from '../domains/device-logs/device-logs.service';
import { GlucoseService, type LinkedDataSource } from '../domains/glucose/glucose.service';
import { SummaryUpdater } from '../domains/glucose/summary-updater';
import type { Foundation, ServiceDependencies } from './foundation';

export type StoredData = Pick<Services, 'contents' | 'blobs' | 'deviceLogs' | 'summaryUpdater' | 'glucose'>;

/**
 * What accounts upload and own: blobs, device logs and glucose data, under one account's quotas and
 * one budget of uploads in flight. `linkedSources` is the clinics domain's, built after this.
 */
export function storedData(
  { config, logger, orm, objectStore }: ServiceDependencies,
  { access, users, accountsExist }: Foundation,
  linkedSources: (scope: Scope, userId: string) => Promise<LinkedDataSource[]>,
): StoredData {
  const contents = new ContentStore(orm, objectStore, logger, {
    uploadTimeoutMs: config.uploadTimeoutSeconds * 1000,
    sizeLimitBytes: config.contentSizeLimitBytes,
  });
  const holdAccount = (tx: EntityManager, userId: string) => users.holdExisting(tx, userId);
  const uploads = new UploadsInFlight(config.uploadsPerAccount);
  const owners = ownerAccounts(accountsExist, holdAccount, config.objectQuotas, uploads);
  const blobs = new BlobsService(access, owners, contents);
  const deviceLogs = new DeviceLogsService(access, owners, contents);
  const summaryUpdater = new SummaryUpdater(() => orm.em.fork(), logger, config.summaryReadingsPerTurn);
  return {
    contents,
    blobs,
    deviceLogs,
    summaryUpdater,
    glucose: new GlucoseService(access, owners, summaryUpdater, config.glucoseReadingsPerHour, linkedSources),
  };
}
