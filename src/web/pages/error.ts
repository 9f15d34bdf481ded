import { html } from '../html.ts';
import { layout } from '../layout.ts';

/** A readable page for errors that must not be redirected (unknown client, bad redirect_uri, ...). */
export function errorPage(title: string, code: string, description: string, advice = 'If an app sent you here, it is misconfigured: tell its developer.'): string {
  return layout(
    title,
    html`<h1>${title}</h1>
<p class="error" role="alert">${description}</p>
<p class="muted">Error code: <code>${code}</code>. ${advice}</p>`,
  );
}

const TITLES: Record<string, string> = {
  invalid_csrf: 'Form not accepted',
  too_many_requests: 'Too many attempts',
  server_error: 'Something went wrong',
  temporarily_unavailable: 'Try again shortly',
};

/** What to do next, where the usual advice (tell the app's developer) does not fit. */
const ADVICE: Record<string, string> = {
  temporarily_unavailable: 'Nothing was changed. Wait a few seconds, then reload the page or send the form again.',
};

/** The page a browser route answers an error with (the error handler's ErrorPage). */
export function httpErrorPage(code: string, description: string): string {
  return errorPage(TITLES[code] ?? 'This request cannot be completed', code, description, ADVICE[code]);
}
