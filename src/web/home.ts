import type { FastifyInstance } from 'fastify';
import type { Deps } from '../deps.ts';
import { html } from './html.ts';
import { layout } from './layout.ts';
import { readSession } from './interaction/session.ts';

/** The landing page: what Lyceum is and where its machine-readable documents live. */
export function registerHome(app: FastifyInstance, deps: Deps): void {
  app.get('/', { config: { html: true } }, async (request, reply) => {
    const signedIn = await readSession(request, deps);
    reply.type('text/html; charset=utf-8').header('cache-control', 'no-store');
    return layout(
      'Welcome',
      html`<h1>Lyceum</h1>
<p>An online school platform with an OAuth 2.0 and OpenID Connect secured API for CLI tools, desktop apps and local agents.</p>
${signedIn ? html`<p>Signed in as <strong>${signedIn.user.email}</strong>. <a href="/account/apps">Connected apps</a></p>` : html`<p><a href="/oauth/sign-in?return_to=%2Faccount%2Fapps">Sign in</a> to see the apps connected to your account.</p>`}
<h2>For developers</h2>
<ul>
<li><a href="/.well-known/oauth-authorization-server">Authorization server metadata</a></li>
<li><a href="/auth.md">Authentication walkthrough</a></li>
<li><a href="/openapi.json">OpenAPI description</a></li>
</ul>`,
    );
  });
}
