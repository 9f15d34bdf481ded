import type { FastifyInstance } from 'fastify';

/** The one stylesheet, served from the origin so the pages' CSP can forbid inline styles. */
export const STYLESHEET = `
:root { color-scheme: light dark; --accent: #2f5bd3; --danger: #b3261e; font-family: system-ui, sans-serif; }
body { margin: 0; line-height: 1.5; }
header.site { padding: .75rem 1.5rem; border-bottom: 1px solid #8884; }
.brand { font-weight: 700; text-decoration: none; color: inherit; }
main { max-width: 34rem; margin: 2rem auto; padding: 0 1.5rem; }
h1 { font-size: 1.5rem; margin: 0 0 1rem; }
form { display: grid; gap: .75rem; margin: 1rem 0; }
label { font-weight: 600; }
input[type=email], input[type=password], input[type=text], select { font: inherit; padding: .5rem; border: 1px solid #888; border-radius: .25rem; }
button { font: inherit; padding: .5rem 1rem; border-radius: .25rem; border: 1px solid var(--accent); cursor: pointer; }
button.primary { background: var(--accent); color: #fff; }
button.secondary { background: transparent; color: inherit; }
.actions { display: flex; gap: .75rem; flex-wrap: wrap; }
.error { color: var(--danger); border-left: 4px solid var(--danger); padding: .25rem .75rem; }
ul.scopes { padding-left: 1.25rem; }
ul.scopes code { font-size: .85em; opacity: .8; }
ul.scopes label { font-weight: normal; }
ul.scopes input[type=checkbox] { margin-right: .4rem; }
.muted { opacity: .8; font-size: .9em; }
ul.apps { list-style: none; padding: 0; }
li.app { border: 1px solid #8884; border-radius: .5rem; padding: .75rem 1rem; margin: 1rem 0; }
li.app h2 { font-size: 1.15rem; margin: 0; }
.notice { border-left: 4px solid var(--accent); padding: .25rem .75rem; }
.warning { border-left: 4px solid var(--danger); padding: .25rem .75rem; }
.document-host { font-size: 1.1em; }
.user-code { font-family: ui-monospace, monospace; font-size: 1.25em; letter-spacing: .1em; }
input.user-code { text-transform: uppercase; }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
pre { overflow-x: auto; padding: .75rem; border: 1px solid #8884; border-radius: .25rem; }
ul.courses { list-style: none; padding: 0; }
li.course { border-top: 1px solid #8884; padding: .5rem 0; }
li.course h3 { margin: 0; font-size: 1.1rem; }
ol.outline ol { padding-left: 1.25rem; }
`;

export function registerAssets(app: FastifyInstance): void {
  app.get('/assets/lyceum.css', async (_req, reply) => {
    reply.header('cache-control', 'public, max-age=3600').type('text/css; charset=utf-8');
    return STYLESHEET;
  });
}
