import { html } from '../html.ts';
import { layout } from '../layout.ts';

export interface SignInPage {
  csrfToken: string;
  returnTo: string;
  email?: string;
  error?: string;
  clientName?: string;
}

/** Email + password form. Field names `email` and `password` are part of the contract. */
export function signInPage(p: SignInPage): string {
  return layout(
    'Sign in',
    html`<h1>Sign in</h1>
${p.clientName ? html`<p><strong>${p.clientName}</strong> wants to connect to your Lyceum account. Sign in to continue.</p>` : ''}
${p.error ? html`<p class="error" role="alert" id="sign-in-error">${p.error}</p>` : ''}
<form method="post" action="/oauth/sign-in" novalidate>
<input type="hidden" name="_csrf" value="${p.csrfToken}">
<input type="hidden" name="return_to" value="${p.returnTo}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${p.email ?? ''}"${p.error ? html` aria-describedby="sign-in-error" aria-invalid="true"` : ''} autofocus>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<div class="actions"><button type="submit" class="primary">Sign in</button></div>
</form>`,
  );
}
