import { ACTIVITY_EVENTS, isActivityEvent } from '../../activity/events.ts';
import type { ActivityEntry } from '../../store/types.ts';
import { durationSelect } from './consent-duration.ts';
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
  /** When the consent ends; null: until disconnected. */
  expiresAt: number | null;
  /** The newest entries of the activity log for this person and this app. */
  recent: ActivityEntry[];
}

const date = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** To the minute, in UTC: an hour's consent needs more than the day. */
const moment = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** When the app's access ends, as the page says it. */
function accessEnd(a: ConnectedApp, now: number) {
  if (a.expiresAt === null) return html`<p class="access-end">Until you disconnect it.</p>`;
  if (now >= a.expiresAt) return html`<p class="access-end ended">Access ended ${moment(a.expiresAt)}. It can no longer refresh its access; extend to let it go on.</p>`;
  return html`<p class="access-end">Access ends ${moment(a.expiresAt)}.</p>`;
}

/** "created courses crs_… (title, status) with create_record": one entry as the person reads it. */
function activityLine(e: ActivityEntry) {
  const what = isActivityEvent(e.event) ? ACTIVITY_EVENTS[e.event] : e.event;
  // A setting (school, appearance) is its own id: named once.
  const id = e.recordId && e.recordId !== e.recordType ? html` <code>${e.recordId}</code>` : '';
  const record = e.recordType ? html` ${e.recordType}${id}` : '';
  const fields = e.event.startsWith('record.') && e.fields.length > 0 ? ` (${e.fields.join(', ')})` : '';
  return html`<li><time datetime="${new Date(e.at).toISOString()}">${moment(e.at)}</time>: ${what}${record}${fields} <span class="muted">with ${e.operation}</span></li>`;
}

/** What the app did for the person lately, newest first. */
const recentActivity = (a: ConnectedApp) =>
  a.recent.length === 0
    ? html`<p class="muted">No activity recorded yet.</p>`
    : html`<details class="activity"><summary>What it did recently (${a.recent.length})</summary><ul>${a.recent.map(activityLine)}</ul></details>`;

/** A form that sets how long the app may act, counted from now; its button names the app for screen readers. */
const extendForm = (a: ConnectedApp, csrfToken: string) => html`<form method="post" action="/account/apps/extend" class="extend">
<input type="hidden" name="_csrf" value="${csrfToken}">
<input type="hidden" name="client_id" value="${a.clientId}">
<label for="duration-${a.clientId}">New end</label>
${durationSelect(`duration-${a.clientId}`, ' from now')}
<button type="submit" class="secondary" aria-label="Extend access of ${a.name}">Extend</button>
</form>`;
/** The signed-in user's connected apps, each with when its access ends, a Disconnect button (revokes its tokens, at once) and a way to extend it. */
export function connectedAppsPage(p: { csrfToken: string; email: string; apps: ConnectedApp[]; now: number; notice?: string }): string {
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
<p class="muted">Client ID <code>${a.clientId}</code> · ${a.redirectHosts.length > 0 ? html`returns to ${a.redirectHosts.join(', ')}` : 'signs in without a browser (device)'} · connected ${date(a.connectedAt)}, last approved ${date(a.updatedAt)}</p>
${accessEnd(a, p.now)}
<details><summary>What it can do (${a.scopes.length})</summary>
<ul class="scopes">${a.scopes.map((s) => html`<li>${isScope(s) ? describeScope(s) : s} <code>${s}</code></li>`)}</ul></details>
${recentActivity(a)}
<form method="post" action="/account/apps/disconnect">
<input type="hidden" name="_csrf" value="${p.csrfToken}">
<input type="hidden" name="client_id" value="${a.clientId}">
<button type="submit" class="secondary" aria-label="Disconnect ${a.name}">Disconnect</button>
</form>
${extendForm(a, p.csrfToken)}
</li>`,
      )}</ul>`
}
<form method="post" action="/oauth/sign-out">
<input type="hidden" name="_csrf" value="${p.csrfToken}">
<button type="submit" class="secondary">Sign out</button>
</form>`,
  );
}
