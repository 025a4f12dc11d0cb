import path from 'node:path';
import { PROJECT_ROOT } from '../infra/project-root';

/** The playground's browser sources (not part of the service's TypeScript project). */
export const PLAYGROUND_SOURCES = path.join(PROJECT_ROOT, 'playground');
/** Where `npm run build` puts the bundle the service serves (never committed). */
export const PLAYGROUND_BUNDLE = path.join(PROJECT_ROOT, 'dist', 'playground');
