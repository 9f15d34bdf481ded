import { describeScope, isScope } from '../../access/scopes.ts';
import { html } from '../html.ts';
import { layout } from '../layout.ts';

export interface ConnectedApp {
  clientId: string;
  name: string;
  redirectHosts: string[];
  /** Added by the school with `lyceum clients add` rather than self-registered. */
  registeredBySchool: boolean;
  scopes: string[];
  connectedAt: number;
  updatedAt: number;
}

const date = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The signed-in user's connected apps, each with a Disconnect button (revokes its tokens). */
export function connectedAppsPage(p: { csrfToken: string; email: string; apps: ConnectedApp[]; notice?: string }): string {
  return layout(
    'Connected apps',
    html`<h1>Connected apps</h1>
<p>Signed in as <strong>${p.email}</strong>.</p>
${p.notice ? html`<p class="notice" role="status">${p.notice}</p>` : ''}
${
  p.apps.length === 0
    ? html`<p>No app has access to your account.</p>`
    : html`<ul class="apps">${p.apps.map(
        (a) => html`<li class="app">
<h2>${a.name}</h2>
${a.registeredBySchool ? html`<p class="registered-by-school">Registered by the school</p>` : html`<p class="registered-itself">Registered itself; the school has not reviewed it</p>`}
<p class="muted">Client ID <code>${a.clientId}</code> · returns to ${a.redirectHosts.join(', ')} · connected ${date(a.connectedAt)}, last approved ${date(a.updatedAt)}</p>
<details><summary>What it can do (${a.scopes.length})</summary>
<ul class="scopes">${a.scopes.map((s) => html`<li>${isScope(s) ? describeScope(s) : s} <code>${s}</code></li>`)}</ul></details>
<form method="post" action="/account/apps/disconnect">
<input type="hidden" name="_csrf" value="${p.csrfToken}">
<input type="hidden" name="client_id" value="${a.clientId}">
<button type="submit" class="secondary" aria-label="Disconnect ${a.name}">Disconnect</button>
</form>
</li>`,
      )}</ul>`
}
<form method="post" action="/oauth/sign-out">
<input type="hidden" name="_csrf" value="${p.csrfToken}">
<button type="submit" class="secondary">Sign out</button>
</form>`,
  );
}
