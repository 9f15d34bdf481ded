/**
 * `lyceum serve` as a process of its own trusts what Node trusts: a client
 * metadata document served with a certificate from the test certificate
 * authority is fetched when NODE_EXTRA_CA_CERTS names that authority, and
 * refused as unfetchable when it does not. The in-process tests give the
 * same authority as extra trust instead, since Node reads
 * NODE_EXTRA_CA_CERTS only when a process starts.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentFor, startDocumentServer, TEST_CA_FILE, type DocumentServer } from '../helpers/document-server.ts';
import { authorizeUrl, pkcePair } from '../helpers/oauth.ts';
import { freePort } from '../helpers/server.ts';
import { spawnServe } from '../helpers/spawn-serve.ts';

let docs: DocumentServer;
beforeAll(async () => {
  docs = await startDocumentServer();
});
afterAll(() => docs?.close());

/** Runs `lyceum serve` with these extra settings and asks its authorization endpoint about a document client. */
async function authorizeThroughServe(extraEnv: Record<string, string>, path: string): Promise<{ status: number; html: string }> {
  const port = await freePort();
  const file = join(mkdtempSync(join(tmpdir(), 'lyceum-cimd-')), 'lyceum.sqlite');
  const server = await spawnServe({ LOG_LEVEL: 'warn', PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: file, CIMD_ALLOW_HOSTS: 'localhost', ...extraEnv });
  try {
    const url = authorizeUrl(`http://127.0.0.1:${port}`, {
      response_type: 'code',
      client_id: docs.url(path),
      redirect_uri: 'http://localhost:53123/callback',
      scope: 'courses:read',
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
    });
    const res = await fetch(url, { redirect: 'manual' });
    return { status: res.status, html: await res.text() };
  } finally {
    expect(await server.stop()).toBe(0);
  }
}

describe('the trust store of the document fetch', () => {
  it('fetches a document whose certificate NODE_EXTRA_CA_CERTS makes trusted', async () => {
    const path = '/trust/with-ca.json';
    docs.json(path, documentFor(docs.url(path), { client_name: 'Trusted by NODE_EXTRA_CA_CERTS' }));
    const page = await authorizeThroughServe({ NODE_EXTRA_CA_CERTS: TEST_CA_FILE }, path);
    // Accepted: the next step is the sign-in page, which names the app.
    expect(page.status, page.html).toBe(200);
    expect(page.html).toContain('action="/oauth/sign-in"');
    expect(page.html).toContain('Trusted by NODE_EXTRA_CA_CERTS');
    expect(docs.hits(path)).toBe(1);
  }, 90_000);

  it('refuses the same document without it: the certificate is not trusted', async () => {
    const path = '/trust/without-ca.json';
    docs.json(path, documentFor(docs.url(path)));
    const page = await authorizeThroughServe({}, path);
    expect(page.status).toBe(400);
    expect(page.html).toContain(`<p class="error" role="alert">The client metadata document at ${docs.url(path)} cannot be used: it could not be fetched.</p>`);
    expect(page.html).toContain('Error code: <code>invalid_client</code>.');
    // The TLS handshake failed: no request reached the document server.
    expect(docs.hits(path)).toBe(0);
  }, 90_000);
});
