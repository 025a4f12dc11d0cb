import DataLoader from 'dataloader';

/**
 * A DataLoader whose `loadMany` fails when a key failed. DataLoader's own answers Error
 * instances in place of values, which callers filtering for rows read as "absent": a database
 * outage during a permission check became a 403, and during a lookup a silent null. Here it
 * rejects with the first error, so it reaches the transport as what it is (503 UNAVAILABLE).
 */
export class Loader<K, V, C = K> extends DataLoader<K, V, C> {
  override async loadMany(keys: ArrayLike<K>): Promise<V[]> {
    const values = await super.loadMany(keys);
    const failure = values.find((value): value is Error => value instanceof Error);
    if (failure) throw failure;
    return values as V[];
  }
}
