/**
 * HTTP from a chosen local source address: the client socket is bound to
 * 127.0.0.2, 127.0.0.3, ... so a server with TRUST_PROXY off sees each as a
 * different client (request.ip is the socket's address). Keeps cookies, as a
 * browser would, and never follows redirects.
 */
import http from 'node:http';
import { parseForms, rememberCookies } from './user-agent.ts';

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: Record<string, unknown>;
}

export class FromAddress {
  private readonly agent: http.Agent;
  private readonly cookies = new Map<string, string>();

  constructor(
    readonly origin: string,
    readonly localAddress: string,
  ) {
    this.agent = new http.Agent({ localAddress });
  }

  request(path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
    const url = new URL(path, this.origin);
    const headers: Record<string, string> = { ...init.headers };
    if (this.cookies.size) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    return new Promise((resolve, reject) => {
      const req = http.request(url, { method: init.method ?? 'GET', headers, agent: this.agent }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          rememberCookies(this.cookies, res.headers['set-cookie'] ?? []);
          let json: Record<string, unknown> = {};
          try {
            json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
          } catch {
            /* not JSON: the test reads text */
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      });
      req.on('error', reject);
      req.end(init.body);
    });
  }

  /** Opens the sign-in page and submits its form with this email and password. */
  async signIn(email: string, password: string): Promise<Answer> {
    const page = await this.request('/oauth/sign-in');
    const form = parseForms(page.text).find((f) => f.action === '/oauth/sign-in');
    if (!form) throw new Error(`no sign-in form (${page.status}): ${page.text.slice(0, 300)}`);
    return this.request(form.action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...form.fields, email, password }).toString(),
    });
  }

  hasCookie(name: string): boolean {
    return this.cookies.has(name);
  }

  close(): void {
    this.agent.destroy();
  }
}
