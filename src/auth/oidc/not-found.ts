import type { KoaContextWithOIDC } from 'oidc-provider';

/**
 * Paths under a realm that neither Islet nor the provider serves answer a JSON 404 in the shape
 * of an unknown realm's (src/auth/realms.ts), not Koa's text "Not Found". `mountPath` is the
 * realm's path (`/realms/dev1`), which express has stripped from the URL the provider sees.
 */
export function jsonNotFound(mountPath: string) {
  return async (ctx: KoaContextWithOIDC, next: () => Promise<unknown>): Promise<void> => {
    await next();
    if (ctx.status !== 404 || ctx.body != null) return;
    ctx.status = 404;
    ctx.body = { error: 'not_found', error_description: `No route for ${ctx.method} ${mountPath}${ctx.path}` };
  };
}
