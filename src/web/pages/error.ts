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

const TITLES: Record<string, string> = {
  invalid_csrf: 'Form not accepted',
  too_many_requests: 'Too many attempts',
  server_error: 'Something went wrong',
};

/** The page a browser route answers an error with (the error handler's ErrorPage). */
export function httpErrorPage(code: string, description: string): string {
  return errorPage(TITLES[code] ?? 'This request cannot be completed', code, description);
}
