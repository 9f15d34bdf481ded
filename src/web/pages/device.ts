import { AUTHORIZATION_SERVER } from '../../util/authorization-server.ts';
import { html } from '../html.ts';
import { layout } from '../layout.ts';
import { ENDPOINTS } from '../../oauth/endpoints.ts';

const FLOW = AUTHORIZATION_SERVER.deviceFlow;

export interface DeviceCodePage {
  csrfToken: string;
  userEmail: string;
  /** The code to show in the field: from the link the device gave, or what the person typed. */
  userCode?: string;
  error?: string;
}

/**
 * The verification page (RFC 8628 §3.3): the person types the code their
 * device shows, or checks the one a link filled in. The field name
 * `user_code` is part of the contract.
 */
export function deviceCodePage(p: DeviceCodePage): string {
  const example = FLOW.userCodeAlphabet.slice(0, FLOW.userCodeLength / 2) + '-' + FLOW.userCodeAlphabet.slice(-FLOW.userCodeLength / 2);
  return layout(
    'Connect a device',
    html`<h1>Connect a device</h1>
<p>Signed in as <strong>${p.userEmail}</strong>.</p>
<p class="warning">Only continue if you started this sign-in yourself, on a device you control. Someone who sends you a code is asking you to let their device act as you.</p>
${p.error ? html`<p class="error" role="alert" id="code-error">${p.error}</p>` : ''}
<form method="post" action="${ENDPOINTS.deviceVerification}" novalidate>
<input type="hidden" name="_csrf" value="${p.csrfToken}">
<label for="user_code">${p.userCode && !p.error ? 'Check that this is the code your device shows' : 'The code your device shows'}</label>
<input id="user_code" name="user_code" type="text" class="user-code" autocomplete="off" autocapitalize="characters" spellcheck="false" required placeholder="${example}" value="${p.userCode ?? ''}"${p.error ? html` aria-describedby="code-error" aria-invalid="true"` : ''} autofocus>
<div class="actions"><button type="submit" class="primary">Continue</button></div>
</form>`,
  );
}

/** What the person sees once they decided: the device learns it at its next poll. */
export function deviceDonePage(p: { approved: boolean; clientName: string }): string {
  return layout(
    p.approved ? 'Device connected' : 'Device not connected',
    p.approved
      ? html`<h1>Device connected</h1>
<p><strong>${p.clientName}</strong> can now act for you. Go back to your device: it continues on its own within a few seconds.</p>
<p class="muted">You can disconnect it at any time on <a href="/account/apps">Connected apps</a>.</p>`
      : html`<h1>Device not connected</h1>
<p><strong>${p.clientName}</strong> was not given access. The device will be told when it next asks.</p>`,
  );
}
