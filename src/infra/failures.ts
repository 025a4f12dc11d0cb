import { invalid, isAppError, unavailable, type AppError } from '../kernel/errors';
import { isDatabaseUnavailable, isRefusedValue } from './database/availability';
import { ObjectStoreUnavailableError } from './object-store/object-store';

/**
 * An error as the client should see it: AppErrors as they are, a dependency that cannot be
 * reached as UNAVAILABLE (503, naming the kind of dependency only: endpoints, addresses, paths
 * and keys stay in the cause, which transports log with the request id), a value PostgreSQL
 * refused as INVALID, anything else undefined: a bug, answered with 500.
 */
export function asAppError(
  error: unknown,
  databaseReason = 'The database is unavailable; try again shortly',
): AppError | undefined {
  if (isAppError(error)) return error;
  if (error instanceof ObjectStoreUnavailableError)
    return unavailable('The object store is unavailable; try again shortly', error);
  // After the store check: a store failure can carry ECONNREFUSED in its cause chain too.
  if (isDatabaseUnavailable(error)) return unavailable(databaseReason, error);
  if (isRefusedValue(error)) return invalid('A value of the request is outside what the database can store');
  return undefined;
}
