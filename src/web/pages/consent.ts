import { ALWAYS_GRANTED, isReadOnlyScope, scopeField } from '../../access/consent.ts';
import { durationSelect } from './consent-duration.ts';
import { describeScope, type Scope } from '../../access/scopes.ts';
import { html, type SafeHtml } from '../html.ts';
import { layout } from '../layout.ts';

export interface ConsentPage {
  csrfToken: string;
  clientName: string;
  clientId: string;
  redirectHost: string;
  /** Added by the school with `lyceum clients add` rather than self-registered. */
  registeredBySchool: boolean;
  userEmail: string;
  /** Scopes the user's role lets them grant. */
  grantable: Scope[];
  /** Scopes asked for that the user's role cannot grant: shown, never granted. */
  withheld: Scope[];
  /** The authorization request, re-sent with the decision and validated again. */
  params: Record<string, string>;
  /** Where the decision is posted. */
  action: string;
  /** Set for the device grant (RFC 8628): the person signs in a device elsewhere that showed this code. */
  device?: { userCode: string };
  /** The redirect URI is an https one, not on the user's computer. */
  redirectElsewhere?: boolean;
  /** A client known by its metadata document: the document's host, and whether every redirect URI it lists is on this computer. */
  metadataDocument?: { host: string; onlyLoopback: boolean };
}

/**
 * Who vouches for a client that named itself by a metadata document. The
 * draft: "The authorization server SHOULD display the hostname of the
 * client_id on the authorization interface, in addition to displaying the
 * fetched client information".
 */
function documentNotice(clientId: string, d: { host: string; onlyLoopback: boolean }): SafeHtml {
  return html`<p class="document-host"><strong>${d.host}</strong> says it is this app. Lyceum has not reviewed it: allow it only if you trust ${d.host}.</p>
<p class="muted">Client ID: <code>${clientId}</code></p>
${d.onlyLoopback ? html`<p class="warning" role="alert">This app sends you back to an address on your own computer. Any program on your computer could receive this sign-in: allow it only if you just started this app yourself.</p>` : ''}`;
}

/** A client that registered itself: only loopback redirects, so the user goes back to an app on this computer. */
const selfRegistered = (p: ConsentPage) => html`<p>Signed in as <strong>${p.userEmail}</strong>. After you decide, you go back to
<strong>${p.redirectHost}</strong> on this computer.</p>
<p class="muted">Client ID: <code>${p.clientId}</code>. This app registered itself; Lyceum has not reviewed it. Only allow apps you started yourself.</p>`;

/** A client the school added: its redirect URIs were set by an administrator and may be a web site or an installed app. */
const registeredBySchool = (p: ConsentPage) => html`<p>Signed in as <strong>${p.userEmail}</strong>. After you decide, you go back to
<strong>${p.redirectHost}</strong>.</p>
<p class="registered-by-school"><strong>Registered by the school.</strong> An administrator of this school added this app and where it may send you back.</p>
<p class="muted">Client ID: <code>${p.clientId}</code>.</p>`;

/** A client known by its metadata document: "on this computer" only when this redirect goes there. */
const documentClient = (p: ConsentPage, d: { host: string; onlyLoopback: boolean }) => html`<p>Signed in as <strong>${p.userEmail}</strong>. After you decide, you go back to
<strong>${p.redirectHost}</strong>${p.redirectElsewhere ? '' : ' on this computer'}.</p>
${documentNotice(p.clientId, d)}`;

/**
 * A device authorization: the app runs on another device, and the one
 * defence against a code sent by someone else (RFC 8628 §5.4, remote
 * phishing) is the person knowing they started it.
 */
const deviceClient = (p: ConsentPage, userCode: string) => html`<p>Signed in as <strong>${p.userEmail}</strong>. You are signing in <strong>a device elsewhere</strong>: it showed you the code
<strong class="user-code">${userCode}</strong>.</p>
<p class="warning" role="alert">Only continue if you started this sign-in yourself, on a device you control. If someone sent you this code or link, choose Deny: whoever holds the device would act as you.</p>
${p.metadataDocument ? documentNotice(p.clientId, p.metadataDocument) : p.registeredBySchool ? html`<p class="registered-by-school"><strong>Registered by the school.</strong> An administrator of this school added this app.</p><p class="muted">Client ID: <code>${p.clientId}</code>.</p>` : html`<p class="muted">Client ID: <code>${p.clientId}</code>. This app registered itself; Lyceum has not reviewed it.</p>`}`;

/** The part of the page that says who the app is and where the person goes after deciding. */
function intro(p: ConsentPage): SafeHtml {
  if (p.device) return deviceClient(p, p.device.userCode);
  if (p.metadataDocument) return documentClient(p, p.metadataDocument);
  return p.registeredBySchool ? registeredBySchool(p) : selfRegistered(p);
}

/**
 * One box per scope the person can grant, ticked: unticking one leaves it
 * out of the grant. A scope that is always granted (the sign-in itself) is
 * shown ticked and fixed, and sent by a hidden field.
 */
function scopeChoices(grantable: Scope[]): SafeHtml {
  return html`<ul class="scopes">${grantable.map((s) =>
    ALWAYS_GRANTED.includes(s)
      ? html`<li><label><input type="checkbox" checked disabled> ${describeScope(s)} <code>${s}</code> (always)</label><input type="hidden" name="${scopeField(s)}" value="on"></li>`
      : html`<li><label><input type="checkbox" name="${scopeField(s)}" value="on" checked> ${describeScope(s)} <code>${s}</code></label></li>`,
  )}</ul>`;
}

const durationChoice = () => html`<label for="duration">How long it may act for you</label>
${durationSelect('duration')}`;

/**
 * The consent form: the scopes to grant (each can be unticked), for how
 * long, and the answer. Buttons `<button name="decision" value="approve|deny">`
 * are part of the contract; `approve_read_only` grants only the read scopes.
 */
export function consentPage(p: ConsentPage): string {
  const scopeList = (scopes: Scope[]) => html`<ul class="scopes">${scopes.map((s) => html`<li>${describeScope(s)} <code>${s}</code></li>`)}</ul>`;
  const canNarrowToReading = p.grantable.some((s) => !isReadOnlyScope(s)) && p.grantable.some((s) => isReadOnlyScope(s) && !ALWAYS_GRANTED.includes(s));
  return layout(
    `Allow ${p.clientName}?`,
    html`<h1>Allow <span class="client-name">${p.clientName}</span> to access your account?</h1>
${intro(p)}
<form method="post" action="${p.action}">
<input type="hidden" name="_csrf" value="${p.csrfToken}">
${Object.entries(p.params).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`)}
<h2>It will be able to</h2>
${p.grantable.length > 0 ? html`<p class="muted">Untick what it should not do.</p>${scopeChoices(p.grantable)}` : html`<p>Nothing: it asked only for access your role does not have.</p>`}
${p.withheld.length > 0 ? html`<h2>Asked for, but not available to your role</h2>${scopeList(p.withheld)}` : ''}
<h2>For how long</h2>
${durationChoice()}
<div class="actions">
<button type="submit" name="decision" value="approve" class="primary">Allow</button>
${canNarrowToReading ? html`<button type="submit" name="decision" value="approve_read_only" class="secondary">Allow reading only</button>` : ''}
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</div>
</form>`,
  );
}
