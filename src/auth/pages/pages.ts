import { html, Html } from '../../kernel/html';

const BASE_POLICY =
  "default-src 'none'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'";

const PRIVATE_SCHEME = /^[a-z][a-z\d+.-]*:$/i;
const UNSAFE_SCHEMES = new Set(['javascript:', 'data:', 'blob:', 'filesystem:', 'file:']);

/**
 * A redirect URI as a CSP source: scheme, host, port and path (`;` and `,` escaped, as CSP
 * requires), or the scheme alone for a native app's private-use scheme. Undefined when it is
 * not a URL.
 */
export function cspSource(uri: string): string | undefined {
  const url = URL.parse(uri);
  if (!url) return undefined;
  if (url.origin === 'null')
    return PRIVATE_SCHEME.test(url.protocol) && !UNSAFE_SCHEMES.has(url.protocol) ? url.protocol : undefined;
  return `${url.origin}${url.pathname.replace(/[;,]/g, encodeURIComponent)}`;
}

/**
 * The pages' policy: forms may post to the service only, plus `formTargets` (the client's
 * registered redirect URI, where the browser goes after the form: browsers apply
 * `form-action` to the redirects a submission follows).
 */
export function contentSecurityPolicy(formTargets: readonly string[] = []): string {
  const targets = formTargets.map(cspSource).filter((source): source is string => source !== undefined);
  return `${BASE_POLICY}; form-action ${["'self'", ...new Set(targets)].join(' ')}`;
}

/** Headers of every page: no scripts or third-party resources, no framing, no caching. */
export const PAGE_HEADERS = {
  'Content-Security-Policy': contentSecurityPolicy(),
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

/** PAGE_HEADERS for a page whose form leads on to `formTargets`. */
export function pageHeaders(formTargets: readonly string[]): Record<string, string> {
  return { ...PAGE_HEADERS, 'Content-Security-Policy': contentSecurityPolicy(formTargets) };
}

export interface PageFrame {
  realm: string;
  title: string;
}

function page({ realm, title }: PageFrame, content: Html): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        <title>${title} · Islet</title>
        <link rel="stylesheet" href="/realms/${realm}/resources/islet.css" />
      </head>
      <body>
        <main>${content}</main>
      </body>
    </html>`.toString();
}

export interface Broker {
  name: string;
  href: string;
}

export interface LoginPage extends PageFrame {
  action: string;
  csrf: string;
  username: string;
  clientName: string;
  error?: string;
  notice?: string;
  brokers: Broker[];
  /** The page that mails a password-reset link. */
  forgotHref: string;
}

export function loginPage(view: LoginPage): string {
  return page(
    view,
    html`<h1>Sign in</h1>
      <p class="lead">to continue to ${view.clientName}</p>
      ${view.error ? html`<p class="error" role="alert" id="login-error">${view.error}</p>` : ''}
      ${view.notice ? html`<p class="notice" role="status">${view.notice}</p>` : ''}
      <form method="post" action="${view.action}" novalidate>
        <input type="hidden" name="csrf" value="${view.csrf}" />
        <label for="username">Email</label>
        <input
          id="username"
          name="username"
          type="email"
          autocomplete="username"
          required
          autofocus
          value="${view.username}"
          ${view.error ? html`aria-describedby="login-error" aria-invalid="true"` : ''}
        />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
        <button type="submit">Sign in</button>
      </form>
      <p class="aside"><a href="${view.forgotHref}">Forgot password?</a></p>
      ${
        view.brokers.length
          ? html`<nav class="brokers" aria-label="Other ways to sign in">
              ${view.brokers.map((broker) => html`<a href="${broker.href}">Sign in with ${broker.name}</a>`)}
            </nav>`
          : ''
      }
      <footer>Realm ${view.realm}</footer>`,
  );
}

export interface ConsentPage extends PageFrame {
  action: string;
  csrf: string;
  clientName: string;
  scopes: string[];
}

const SCOPE_DESCRIPTIONS: Record<string, string> = {
  openid: 'Know who you are',
  email: 'See your email address',
  profile: 'See your user name',
  offline_access: 'Keep access while you are away',
};

export function consentPage(view: ConsentPage): string {
  return page(
    view,
    html`<h1>Allow access?</h1>
      <p class="lead">${view.clientName} asks to:</p>
      <ul class="scopes">
        ${view.scopes.map((scope) => html`<li>${SCOPE_DESCRIPTIONS[scope] ?? scope}</li>`)}
      </ul>
      <form method="post" action="${view.action}">
        <input type="hidden" name="csrf" value="${view.csrf}" />
        <button type="submit" name="decision" value="allow">Allow</button>
        <button type="submit" name="decision" value="deny" class="secondary">Deny</button>
      </form>`,
  );
}

export function messagePage(frame: PageFrame, message: string): string {
  return page(
    frame,
    html`<h1>${frame.title}</h1>
      <p class="lead">${message}</p>`,
  );
}

/** RP-initiated logout: oidc-provider supplies the form (with its own xsrf field). */
export function logoutPage(frame: PageFrame, form: string): string {
  return page(
    frame,
    html`<h1>Sign out?</h1>
      <p class="lead">You will be signed out of this realm.</p>
      ${new Html(form)}
      <button type="submit" form="op.logoutForm" name="logout" value="yes">Sign out</button>
      <button type="submit" form="op.logoutForm" class="secondary">Stay signed in</button>`,
  );
}

/** A form of the password-reset and address-confirmation pages: its fields, one button. */
export interface AccountForm extends PageFrame {
  lead: string;
  action: string;
  csrf: string;
  /** Hidden fields the form carries back (the key, the address). */
  hidden: Record<string, string>;
  fields: { name: string; label: string; type: 'email' | 'password'; autocomplete: string; value?: string }[];
  button: string;
  error?: string;
  /** A link under the form (back to the sign-in page). */
  back?: { href: string; label: string };
}

export function accountFormPage(view: AccountForm): string {
  return page(
    view,
    html`<h1>${view.title}</h1>
      <p class="lead">${view.lead}</p>
      ${view.error ? html`<p class="error" role="alert" id="form-error">${view.error}</p>` : ''}
      <form method="post" action="${view.action}" novalidate>
        <input type="hidden" name="csrf" value="${view.csrf}" />
        ${Object.entries(view.hidden).map(
          ([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`,
        )}
        ${view.fields.map(
          (field, index) =>
            html`<label for="${field.name}">${field.label}</label>
              <input
                id="${field.name}"
                name="${field.name}"
                type="${field.type}"
                autocomplete="${field.autocomplete}"
                required
                ${index === 0 ? html`autofocus` : ''}
                value="${field.value ?? ''}"
                ${view.error ? html`aria-describedby="form-error" aria-invalid="true"` : ''}
              />`,
        )}
        <button type="submit">${view.button}</button>
      </form>
      ${view.back ? html`<p class="aside"><a href="${view.back.href}">${view.back.label}</a></p>` : ''}`,
  );
}
