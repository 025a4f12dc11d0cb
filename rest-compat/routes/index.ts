import type { RestRoute } from '../route';
import { permissionRoutes } from './permissions';
import { sessionRoutes } from './sessions';
import { userRoutes } from './users';

/** The legacy REST API: one row per Tidepool operation. */
export const restRoutes: RestRoute[] = [...sessionRoutes, ...userRoutes, ...permissionRoutes];
