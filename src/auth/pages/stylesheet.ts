/** The login pages' only stylesheet, served by the app itself (no CDN, no JavaScript). */
export const STYLESHEET = `
:root { color-scheme: light dark; --accent: #2457c5; --danger: #b3261e; --muted: #5f6368; --bg: #f5f7fb; --card: #fff; --text: #1b1f24; --line: #c9d1dc; }
@media (prefers-color-scheme: dark) { :root { --accent: #8ab4f8; --danger: #f2b8b5; --muted: #a8b0ba; --bg: #121418; --card: #1d2026; --text: #e8eaed; --line: #3c4350; } }
* { box-sizing: border-box; }
body { margin: 0; min-height: 100vh; display: grid; place-items: center; background: var(--bg); color: var(--text);
  font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { width: min(26rem, 100% - 2rem); background: var(--card); border: 1px solid var(--line); border-radius: 12px; padding: 2rem; }
h1 { font-size: 1.5rem; margin: 0 0 .25rem; }
p.lead { margin: 0 0 1.5rem; color: var(--muted); }
label { display: block; font-weight: 600; margin: 1rem 0 .35rem; }
input[type=email], input[type=text], input[type=password] { width: 100%; padding: .65rem .75rem; font: inherit; color: inherit;
  background: transparent; border: 1px solid var(--line); border-radius: 8px; }
input:focus-visible, button:focus-visible, a:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
button { width: 100%; margin-top: 1.5rem; padding: .7rem; font: inherit; font-weight: 600; border: 0; border-radius: 8px;
  background: var(--accent); color: #fff; cursor: pointer; }
button.secondary { background: transparent; color: var(--accent); border: 1px solid var(--line); margin-top: .75rem; }
.error { border-left: 4px solid var(--danger); padding: .5rem .75rem; margin: 0 0 1rem; color: var(--danger); }
.notice { border-left: 4px solid var(--accent); padding: .5rem .75rem; margin: 0 0 1rem; }
.brokers { margin-top: 1.5rem; padding-top: 1rem; border-top: 1px solid var(--line); }
.brokers a { display: block; text-align: center; padding: .6rem; margin-top: .5rem; border: 1px solid var(--line); border-radius: 8px;
  color: var(--accent); text-decoration: none; font-weight: 600; }
ul.scopes { padding-left: 1.25rem; }
p.aside { margin: 1rem 0 0; text-align: center; }
p.aside a { color: var(--accent); }
footer { margin-top: 1.5rem; font-size: .85rem; color: var(--muted); text-align: center; }
`;
