/**
 * The loopback redirect URI rules at open registration, stated by hand as a
 * client reads them: which URIs are taken as written, and for each refused
 * one the exact reason the error_description gives (RFC 7591 §3.2.2).
 * RFC 8252 §7.3: "Loopback redirect URIs use the "http" scheme"; RFC 6749
 * §3.1.2: "The endpoint URI MUST NOT include a fragment component."
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pkcePair, register } from '../helpers/oauth.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

/** The whole error_description for one refused URI, written out by hand. */
const refusedBecause = (reason: string) =>
  `Open registration accepts only loopback redirect URIs (http://127.0.0.1:<port>/<path>): ${reason}. ` + 'Fixed https callbacks need a registered integration arranged with support.';

const LONGEST = `http://127.0.0.1/${'a'.repeat(2000 - 'http://127.0.0.1/'.length)}`;

const REFUSED: { rule: string; uri: unknown; reason: string }[] = [
  { rule: 'an empty string', uri: '', reason: 'a redirect URI must be a non-empty string' },
  { rule: 'a number instead of a string', uri: 42, reason: 'a redirect URI must be a non-empty string' },
  { rule: 'one character over 2000', uri: `${LONGEST}a`, reason: 'a redirect URI must be at most 2000 characters' },
  { rule: 'a fragment', uri: 'http://127.0.0.1/cb#frag', reason: 'http://127.0.0.1/cb#frag has a fragment' },
  { rule: 'the https scheme', uri: 'https://127.0.0.1:8443/cb', reason: 'https://127.0.0.1:8443/cb is not an http loopback URI' },
  { rule: 'http:// not at the start', uri: 'xhttp://127.0.0.1/cb', reason: 'xhttp://127.0.0.1/cb is not an http loopback URI' },
  { rule: 'user information', uri: 'http://user@127.0.0.1/cb', reason: 'http://user@127.0.0.1/cb carries user information' },
  { rule: 'user information behind an upper-case scheme', uri: 'HTTP://user:pw@localhost/cb', reason: 'HTTP://user:pw@localhost/cb carries user information' },
  { rule: 'a space in the path', uri: 'http://127.0.0.1/c b', reason: 'http://127.0.0.1/c b contains white space or a backslash' },
  { rule: 'a backslash in the path', uri: 'http://127.0.0.1/c\\b', reason: 'http://127.0.0.1/c\\b contains white space or a backslash' },
  { rule: 'two ports', uri: 'http://127.0.0.1:80:80/cb', reason: 'http://127.0.0.1:80:80/cb is not an absolute http URI' },
  { rule: 'a six-digit port', uri: 'http://127.0.0.1:123456/cb', reason: 'http://127.0.0.1:123456/cb is not an absolute http URI' },
  { rule: 'no host', uri: 'http:///cb', reason: 'http:///cb is not an absolute http URI' },
  { rule: 'a malformed authority before a loopback URI in the path', uri: 'http://a:1:2/http://127.0.0.1/cb', reason: 'http://a:1:2/http://127.0.0.1/cb is not an absolute http URI' },
  { rule: 'port 0', uri: 'http://127.0.0.1:0/cb', reason: 'http://127.0.0.1:0/cb has an invalid port' },
  { rule: 'port 65536', uri: 'http://127.0.0.1:65536/cb', reason: 'http://127.0.0.1:65536/cb has an invalid port' },
  {
    rule: 'a host that is not a loopback name',
    uri: 'http://example.com/cb',
    reason: 'http://example.com/cb is not a loopback address (127.0.0.1, [::1], localhost)',
  },
];

const ACCEPTED: { rule: string; uri: string }[] = [
  { rule: 'exactly 2000 characters', uri: LONGEST },
  { rule: 'port 1', uri: 'http://127.0.0.1:1/cb' },
  { rule: 'port 65535', uri: 'http://127.0.0.1:65535/cb' },
  { rule: 'an upper-case scheme and host (both are case-insensitive)', uri: 'HTTP://LOCALHOST:8080/cb' },
  { rule: 'no path at all', uri: 'http://127.0.0.1:9000' },
  { rule: 'a query without a path', uri: 'http://[::1]?x=1' },
  { rule: 'an @ in the query, after the host (not user information)', uri: 'http://127.0.0.1/cb?next=http://u@x' },
];

describe.each(STORE_KINDS)('loopback redirect URI rules at registration (%s)', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(async () => {
    await server?.close();
  });

  for (const { rule, uri, reason } of REFUSED) {
    it(`refuses ${rule}, and says why`, async () => {
      const res = await register(server.issuer, { client_name: 'refused', redirect_uris: [uri] });
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ error: 'invalid_redirect_uri', error_description: refusedBecause(reason) });
    });
  }

  for (const { rule, uri } of ACCEPTED) {
    it(`accepts ${rule}, echoed as written`, async () => {
      const res = await register(server.issuer, { client_name: 'accepted', redirect_uris: [uri] });
      expect(res.status, JSON.stringify(res.json)).toBe(201);
      expect(res.json.redirect_uris).toEqual([uri]);
    });
  }

  it('keeps the loopback URIs and drops the refused ones when both are sent', async () => {
    const res = await register(server.issuer, { client_name: 'mixed', redirect_uris: ['http://127.0.0.1:0/cb', 'http://localhost/ok'] });
    expect(res.status).toBe(201);
    expect(res.json.redirect_uris).toEqual(['http://localhost/ok']);
  });

  describe('at the authorization step, a URI registered without a path stands for the root path "/"', () => {
    const ask = async (clientId: string, redirectUri: string) => {
      const q = new URLSearchParams({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: redirectUri,
        scope: 'courses:read',
        code_challenge: pkcePair().challenge,
        code_challenge_method: 'S256',
        state: 'st',
      });
      const res = await fetch(`${server.issuer}/oauth/authorize?${q}`, { redirect: 'manual' });
      return { status: res.status, html: await res.text() };
    };
    let clientId: string;
    beforeAll(async () => {
      const res = await register(server.issuer, { client_name: 'no path', redirect_uris: ['http://127.0.0.1:9000'] });
      expect(res.status).toBe(201);
      clientId = res.json.client_id as string;
    });

    it('accepts "/" on another port, and shows the sign-in page', async () => {
      const { status, html } = await ask(clientId, 'http://127.0.0.1:9001/');
      expect(status, html.slice(0, 400)).toBe(200);
      expect(html).toContain('action="/oauth/sign-in"');
    });

    it('refuses another path with a 400 page that names the mismatch', async () => {
      const { status, html } = await ask(clientId, 'http://127.0.0.1:9001/cb');
      expect(status).toBe(400);
      expect(html).toContain('redirect_uri does not match any URI registered for this client.');
    });
  });
});
