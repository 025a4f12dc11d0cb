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

/**
 * Sign-in comes back to the page at PUBLIC_URL (the one redirect URI the realms know), and the
 * page talks only to its own origin: reached at another address of the service (localhost for
 * 127.0.0.1, a LAN address), the page moves to PUBLIC_URL first.
 */
const home = new URL(settings.redirectUri);
export const elsewhere = window.location.origin !== home.origin;
if (elsewhere) window.location.replace(home.href);
