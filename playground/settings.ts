/** What the service tells the page (data attributes of #playground, see src/playground/page.ts). */
export interface PlaygroundSettings {
  /** `${PUBLIC_URL}/realms/`: a realm's issuer is this plus its name. */
  issuerBase: string;
  realms: string[];
  defaultRealm: string;
  clientId: string;
  /** The page itself, as registered for the playground client. */
  redirectUri: string;
  /** Where the page's scripts and workers are served. */
  assets: string;
  /** This response's CSP nonce for <style> elements. */
  styleNonce: string;
}

export function readSettings(element: HTMLElement): PlaygroundSettings {
  const data = element.dataset;
  return {
    issuerBase: data.issuerBase!,
    realms: data.realms!.split(' '),
    defaultRealm: data.defaultRealm!,
    clientId: data.clientId!,
    redirectUri: data.redirectUri!,
    assets: data.assets!,
    styleNonce: data.styleNonce!,
  };
}
