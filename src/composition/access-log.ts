import { assertClinicAccess } from '../domains/clinics/membership';
import { AccessLogService } from '../domains/access-log/access-log.service';
import { accessEventsInTransactions, accessSink, GroupedEntryWriter } from '../domains/access-log/access-log.writer';
import type { AccessSink } from '../kernel/access-trail';
import type { Foundation, ServiceDependencies } from './foundation';

/** Entries expire by the day; an hourly look keeps a removal small. */
const ACCESS_LOG_SWEEP_INTERVAL_MS = 60 * 60 * 1000;
/** How long stopping waits for the queued access log entries of reads to be written. */
const ACCESS_LOG_CLOSE_TIMEOUT_MS = 10_000;

export interface AccessLogParts {
  accessLog: AccessLogService;
  accessSink: AccessSink | null;
  stopSweeping(): void;
  /** Writes what reads queued, waiting at most ACCESS_LOG_CLOSE_TIMEOUT_MS. */
  closeWriter(): Promise<void>;
}

/**
 * The access log: reads are recorded through a grouped writer (only with ACCESS_LOG_RECORDING),
 * changes in the transaction that makes them, and an hourly sweep removes entries past retention.
 */
export function accessLogParts(
  { config, logger, orm }: ServiceDependencies,
  { access, users }: Foundation,
): AccessLogParts {
  const readEntries = config.accessLogRecording
    ? new GroupedEntryWriter(
        () => orm.em.fork(),
        logger,
        (em, ids) => users.existingIds(em, ids),
      )
    : null;
  const accessLog = new AccessLogService(
    access,
    (scope, clinicId) => assertClinicAccess(scope, clinicId, 'admin'),
    (scope, ids) => users.loginNames(scope, ids),
    () => readEntries?.flush(),
  );
  orm.em.getEventManager().registerSubscriber(accessEventsInTransactions);
  const sweepAccessLog = () =>
    accessLog
      .sweep({ em: orm.em.fork() }, config.accessLogRetentionDays)
      .then((removed) => removed && logger.info({ removed }, 'removed access log entries past their retention'))
      .catch((error: unknown) => logger.warn({ err: error }, 'sweeping the access log failed'));
  const sweeper = setInterval(sweepAccessLog, ACCESS_LOG_SWEEP_INTERVAL_MS).unref();
  return {
    accessLog,
    accessSink: readEntries && accessSink(readEntries),
    stopSweeping: () => clearInterval(sweeper),
    closeWriter: async () => readEntries?.close(ACCESS_LOG_CLOSE_TIMEOUT_MS),
  };
}
