/**
 * A minimal browser for OIDC front-channel flows without Chromium: keeps cookies (by name and
 * path), follows redirects one hop at a time and submits forms. Real browsers are tested in
 * test/browser/.
 */
export interface Hop {
  status: number;
  url: string;
  location: string | null;
  body: string;
  headers: Headers;
}

interface Cookie {
  value: string;
  path: string;
  attributes: string;
}

export class UserAgent {
  readonly cookies = new Map<string, Cookie>();

  /** Cookie attribute strings as the server set them (e.g. to check HttpOnly, SameSite). */
  setCookieHeaders: string[] = [];

  constructor(private readonly headers: Record<string, string> = {}) {}

  private cookieHeader(url: URL): string {
    return [...this.cookies]
      .filter(([, cookie]) => url.pathname.startsWith(cookie.path))
      .map(([name, cookie]) => `${name}=${cookie.value}`)
      .join('; ');
  }

  private remember(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      this.setCookieHeaders.push(line);
      const [pair, ...attributes] = line.split(';').map((part) => part.trim());
      const [name, ...value] = pair.split('=');
      const path = attributes.find((attribute) => attribute.toLowerCase().startsWith('path='))?.slice(5) ?? '/';
      const expired =
        attributes.some((attribute) => /^expires=thu, 01 jan 1970/i.test(attribute)) || /max-age=0/i.test(line);
      if (expired || value.join('=') === '') this.cookies.delete(name);
      else this.cookies.set(name, { value: value.join('='), path, attributes: attributes.join('; ') });
    }
  }

  async request(url: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<Hop> {
    const target = new URL(url);
    const headers: Record<string, string> = { accept: 'text/html', ...this.headers };
    const cookie = this.cookieHeader(target);
    if (cookie) headers.cookie = cookie;
    let body: string | undefined;
    if (init.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(init.form).toString();
    }
    const response = await fetch(target, {
      method: init.method ?? (body ? 'POST' : 'GET'),
      headers,
      body,
      redirect: 'manual',
    });
    this.remember(response);
    const location = response.headers.get('location');
    return {
      status: response.status,
      url: target.href,
      location: location ? new URL(location, target).href : null,
      body: await response.text(),
      headers: response.headers,
    };
  }

  /** Follows redirects until a page answers or the next hop leaves for `stopAt` (e.g. the client's redirect URI). */
  async follow(url: string, stopAt: string): Promise<Hop> {
    let hop = await this.request(url);
    for (let count = 0; hop.location && count < 20; count += 1) {
      if (hop.location.startsWith(stopAt)) return hop;
      hop = await this.request(hop.location);
    }
    return hop;
  }

  /** Fills and posts the first form of a page, keeping its hidden fields. */
  async submit(page: Hop, fields: Record<string, string>, stopAt: string): Promise<Hop> {
    const action = /<form[^>]*action="([^"]+)"/.exec(page.body)?.[1];
    if (!action) throw new Error(`no form on ${page.url}: ${page.body.slice(0, 300)}`);
    const hidden = Object.fromEntries(
      [...page.body.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m) => [
        m[1],
        decodeEntities(m[2]),
      ]),
    );
    let hop = await this.request(new URL(decodeEntities(action), page.url).href, { form: { ...hidden, ...fields } });
    for (let count = 0; hop.location && count < 20; count += 1) {
      if (hop.location.startsWith(stopAt)) return hop;
      hop = await this.request(hop.location);
    }
    return hop;
  }
}

export function decodeEntities(text: string): string {
  return text.replace(/&#(\d+);/g, (_match, code: string) => String.fromCharCode(Number(code))).replace(/&amp;/g, '&');
}
