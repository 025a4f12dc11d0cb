import { readSettings } from './settings';
import { nonceStyleElements } from './styles';
import { setUpWorkers } from './workers';

/**
 * Imported first, so it runs before GraphiQL's and Monaco's modules are evaluated (they may
 * create style elements and workers as they load).
 */
export const element = document.getElementById('playground')!;
export const settings = readSettings(element);
nonceStyleElements(settings.styleNonce);
setUpWorkers(settings.assets);
