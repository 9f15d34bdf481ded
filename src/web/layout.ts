import { html, type SafeHtml } from './html.ts';

/** The page frame shared by sign-in, consent and error pages. */
export function layout(title: string, body: SafeHtml): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title} · Lyceum</title>
<link rel="stylesheet" href="/assets/lyceum.css">
<link rel="icon" href="data:,">
</head>
<body>
<header class="site"><a href="/" class="brand">Lyceum</a></header>
<main id="main">
${body}
</main>
</body>
</html>
`.value;
}
