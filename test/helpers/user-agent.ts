/**
 * A cookie-keeping HTTP user agent that reads Lyceum's HTML forms and submits
 * them, as a person with a browser without JavaScript would. It never follows
 * a redirect to a loopback client: that URL is returned to the test, which
 * plays the native app's listener.
 */

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };
const decode = (s: string) => s.replace(/&(amp|lt|gt|quot|#39);/g, (m) => ENTITIES[m] ?? m);

export interface FormInfo {
  action: string;
  fields: Record<string, string>;
}

/** The forms of a page with the fields a browser would send untouched: hidden ones and ticked boxes (enough for Lyceum's own markup). */
export function parseForms(html: string): FormInfo[] {
  const forms: FormInfo[] = [];
  for (const m of html.matchAll(/<form[^>]*action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/g)) {
    const fields: Record<string, string> = {};
    for (const input of m[2]!.matchAll(/<input type="(?:hidden|checkbox)" name="([^"]*)" value="([^"]*)"(?: checked)?>/g)) {
      if (input[0].includes('type="checkbox"') && !input[0].endsWith(' checked>')) continue;
      fields[decode(input[1]!)] = decode(input[2]!);
    }
    forms.push({ action: decode(m[1]!), fields });
  }
  return forms;
}

export interface Page {
  status: number;
  url: string;
  html: string;
  headers: Headers;
}

/** Keeps a response's Set-Cookie lines in a jar, as a browser would: a cleared or expired cookie is dropped. */
export function rememberCookies(jar: Map<string, string>, setCookie: readonly string[]): void {
  for (const line of setCookie) {
    const [pair] = line.split(';');
    const eq = pair!.indexOf('=');
    const name = pair!.slice(0, eq).trim();
    const value = pair!.slice(eq + 1).trim();
    if (/max-age=0|expires=thu, 01 jan 1970/i.test(line) || value === '') jar.delete(name);
    else jar.set(name, value);
  }
}

/** The step of a flow that must be a page; a redirect fails the test with where it went. */
export function asPage(step: Page | { redirect: URL }): Page {
  if ('redirect' in step) throw new Error(`expected a page, got a redirect to ${step.redirect.href}`);
  return step;
}

/** The step of a flow that must be a redirect; a page fails the test with its start. */
export function asRedirect(step: Page | { redirect: URL }): URL {
  if (!('redirect' in step)) throw new Error(`expected a redirect, got a page (${step.status}): ${step.html.slice(0, 400)}`);
  return step.redirect;
}

export class UserAgent {
  private cookies = new Map<string, string>();

  constructor(readonly origin: string) {}

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private remember(res: Response): void {
    rememberCookies(this.cookies, res.headers.getSetCookie());
  }

  /** One request, no redirect following. */
  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const abs = new URL(url, this.origin).href;
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set('cookie', this.cookieHeader());
    const res = await fetch(abs, { ...init, headers, redirect: 'manual' });
    this.remember(res);
    return res;
  }

  /** Follows redirects within Lyceum's origin; stops at a redirect elsewhere (the client's listener). */
  async navigate(url: string, init: RequestInit = {}): Promise<Page | { redirect: URL }> {
    let res = await this.request(url, init);
    let current = new URL(url, this.origin).href;
    for (let hops = 0; hops < 10 && res.status >= 300 && res.status < 400; hops++) {
      const location = new URL(res.headers.get('location')!, current);
      if (location.origin !== this.origin) return { redirect: location };
      current = location.href;
      res = await this.request(current);
    }
    return { status: res.status, url: current, html: await res.text(), headers: res.headers };
  }

  async submit(form: FormInfo, extra: Record<string, string>): Promise<Page | { redirect: URL }> {
    return this.navigate(form.action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...form.fields, ...extra }).toString(),
    });
  }

  /** Signs in on a page that shows the sign-in form; the page it leads to (a redirect fails the test). */
  async signIn(page: Page, user: { email: string; password: string }): Promise<Page> {
    const form = parseForms(page.html).find((f) => f.action === '/oauth/sign-in');
    if (!form) throw new Error(`no sign-in form on the page (${page.status}): ${page.html.slice(0, 400)}`);
    return asPage(await this.submit(form, { email: user.email, password: user.password }));
  }

  /**
   * Runs the browser part of an authorization: open the URL, sign in if asked,
   * then approve or deny. Returns the redirect to the client.
   */
  async authorize(url: string, user: { email: string; password: string }, decision: 'approve' | 'deny' = 'approve'): Promise<URL> {
    let step = await this.navigate(url);
    for (let i = 0; i < 4; i++) {
      if ('redirect' in step) return step.redirect;
      const forms = parseForms(step.html);
      const signIn = forms.find((f) => f.action === '/oauth/sign-in');
      const consent = forms.find((f) => f.action === '/oauth/authorize/decision');
      if (signIn) step = await this.submit(signIn, { email: user.email, password: user.password });
      else if (consent) step = await this.submit(consent, { decision });
      else throw new Error(`unexpected page (${step.status}): ${step.html.slice(0, 500)}`);
    }
    throw new Error('authorization did not finish');
  }
}
