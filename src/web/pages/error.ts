import { html } from '../html.ts';
import { layout } from '../layout.ts';

/** A readable page for errors that must not be redirected (unknown client, bad redirect_uri, ...). */
export function errorPage(title: string, code: string, description: string): string {
  return layout(
    title,
    html`<h1>${title}</h1>
<p class="error" role="alert">${description}</p>
<p class="muted">Error code: <code>${code}</code>. If an app sent you here, it is misconfigured: tell its developer.</p>`,
  );
}
