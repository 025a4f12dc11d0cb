import type { Account } from './accounts';

/** Content the service acknowledged (2xx): its id, its owner and the SHA-256 of the bytes sent. */
export interface Acknowledged {
  id: string;
  owner: Account;
  sha256: string;
}

/** One glucose upload: `count` readings in consecutive slots from `first`. */
export interface GlucoseBatch {
  userId: string;
  first: number;
  count: number;
  /** Whether the service answered 2xx; an unanswered batch may be stored or not, but not in part. */
  acknowledged: boolean;
}

/** Every write the workload made, for the checks at the end. */
export class Ledger {
  private readonly blobIds: string[] = [];
  private readonly logIds: string[] = [];
  readonly blobs = new Map<string, Acknowledged>();
  readonly deviceLogs = new Map<string, Acknowledged>();
  readonly batches: GlucoseBatch[] = [];

  addBlob(entry: Acknowledged): void {
    this.blobs.set(entry.id, entry);
    this.blobIds.push(entry.id);
  }

  addDeviceLog(entry: Acknowledged): void {
    this.deviceLogs.set(entry.id, entry);
    this.logIds.push(entry.id);
  }

  someBlob(): Acknowledged | undefined {
    return this.blobs.get(pick(this.blobIds) ?? '');
  }

  someDeviceLog(): Acknowledged | undefined {
    return this.deviceLogs.get(pick(this.logIds) ?? '');
  }
}

export function pick<T>(items: readonly T[]): T | undefined {
  return items[Math.floor(Math.random() * items.length)];
}
