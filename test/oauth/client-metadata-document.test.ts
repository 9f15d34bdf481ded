/**
 * Clients that name themselves by a metadata document
 * (draft-ietf-oauth-client-id-metadata-document), over real HTTP: Lyceum on
 * loopback, the documents served over https by a local server whose
 * certificate a test certificate authority issued (Lyceum is given that
 * authority as extra trust; test/ops/client-document-trust.test.ts does it
 * with NODE_EXTRA_CA_CERTS). CIMD_ALLOW_HOSTS names localhost, which
 * otherwise the address check refuses.
 */
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callUserinfo } from '../helpers/bearer.ts';
import { documentClientRequest as request, documentFor, errorAlert as alert, errorCode as code, startDocumentServer, TEST_CA, type DocumentServer } from '../helpers/document-server.ts';
import { authorizeFlow, exchangeCode, isActive, startFlowServer, type FlowServer } from '../helpers/flow.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { asPage, asRedirect, parseForms, UserAgent } from '../helpers/user-agent.ts';

let docs: DocumentServer;
let paths = 0;
/** A path of its own for each test, so no test sees another's cached document. */
const freshPath = (name: string) => `/clients/${name}-${++paths}.json`;

beforeAll(async () => {
  docs = await startDocumentServer();
});
afterAll(() => docs?.close());

/** The page a refused authorization shows: never a redirect, always HTML. */
async function refusal(url: string): Promise<{ status: number; html: string; headers: Headers }> {
  const res = await fetch(url, { redirect: 'manual' });
  expect(res.headers.get('location')).toBeNull();
  expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
  return { status: res.status, html: await res.text(), headers: res.headers };
}

describe.each(STORE_KINDS)('a client known by its metadata document (%s)', (kind) => {
  let server: FlowServer;

  beforeAll(async () => {
    server = await startFlowServer(kind, { CIMD_ALLOW_HOSTS: 'localhost', CIMD_FETCHES_PER_HOST_PER_MINUTE: '0' }, { extraCa: TEST_CA });
  });
  afterAll(() => server?.stop());

  it('the authorization server metadata advertises client_id_metadata_document_supported', async () => {
    const meta = (await (await fetch(`${server.issuer}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(meta.client_id_metadata_document_supported).toBe(true);
  });

  it("/auth.md says how such a client connects, with this server's limits", async () => {
    const md = await (await fetch(`${server.issuer}/auth.md`)).text();
    expect(md).toContain('## Clients that name themselves by a URL (Client ID Metadata Documents)');
    expect(md).toContain('Fetched with a 3000 ms deadline (CIMD_FETCH_TIMEOUT_MS), at most 5120 bytes (CIMD_MAX_BYTES)');
    expect(md).toContain('Fetches per host are not limited on this server (CIMD_FETCHES_PER_HOST_PER_MINUTE=0).');
    expect(md).not.toContain('Client ID Metadata Documents are not supported');
  });

  it('completes discovery → authorize → consent → code → token (PKCE, no secret) → UserInfo → refresh → revoke with oauth4webapi', async () => {
    const path = freshPath('oauth4webapi');
    const clientId = docs.url(path);
    docs.json(path, documentFor(clientId, { client_name: 'oauth4webapi CIMD app' }));
    const allowHttp = { [oauth.allowInsecureRequests]: true };
    const as = await oauth.processDiscoveryResponse(new URL(server.issuer), await oauth.discoveryRequest(new URL(server.issuer), { algorithm: 'oauth2', ...allowHttp }));
    expect(as.client_id_metadata_document_supported).toBe(true);
    const client: oauth.Client = { client_id: clientId };
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    // The document lists http://localhost/callback without a port; the app listens on one it picked.
    const redirectUri = 'http://localhost:53123/callback';
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      client_id: clientId,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: 'openid courses:read',
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
    }).toString();

    const agent = new UserAgent(server.issuer);
    const signIn = asPage(await agent.navigate(url.href));
    const consent = await agent.signIn(signIn, server.user);
    // The draft: "The authorization server SHOULD display the hostname of the client_id".
    expect(consent.html).toContain('<p class="document-host"><strong>localhost:');
    expect(consent.html).toContain(`</strong> says it is this app.`);
    expect(consent.html).toContain(`<code>${clientId}</code>`);
    expect(consent.html).toContain('<span class="client-name">oauth4webapi CIMD app</span>');
    expect(consent.html).toContain('Any program on your computer could receive this sign-in');
    const callback = asRedirect(
      await agent.submit(
        parseForms(consent.html).find((f) => f.action === '/oauth/authorize/decision')!,
        { decision: 'approve' },
      ),
    );
    expect(callback.origin).toBe('http://localhost:53123');

    const params = oauth.validateAuthResponse(as, client, callback, state);
    const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirectUri, verifier, allowHttp);
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, response, { requireIdToken: true });
    expect(tokens.scope).toBe('openid courses:read');
    expect(oauth.getValidatedIdTokenClaims(tokens)!.aud).toBe(clientId);
    const me = await callUserinfo(server.issuer, { authorization: `Bearer ${tokens.access_token}` });
    expect(me.status).toBe(200);
    expect(me.json.sub).toBe(server.user.id);
    const refreshed = await oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, allowHttp));
    expect(refreshed.access_token).toMatch(/^lyc_at_/);
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, oauth.None(), refreshed.refresh_token!, allowHttp));
    const again = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), refreshed.refresh_token!, allowHttp);
    await expect(oauth.processRefreshTokenResponse(as, client, again)).rejects.toMatchObject({ error: 'invalid_grant' });
    // Fetched once for the whole flow: the authorization, the consent and the token requests share it.
    expect(docs.hits(path)).toBe(1);
  });

  it('lists the client on the connected apps page and revokes its tokens when the user disconnects it', async () => {
    const path = freshPath('connected');
    const clientId = docs.url(path);
    docs.json(path, documentFor(clientId, { client_name: 'Connected CIMD app' }));
    const flow = await authorizeFlow(server, { client: { clientId } });
    const tokens = await exchangeCode(server, flow);
    expect(tokens.status, tokens.text).toBe(200);
    const access = tokens.json.access_token as string;
    expect(await isActive(server, { clientId }, access)).toBe(true);

    const agent = new UserAgent(server.issuer);
    const signIn = asPage(await agent.navigate('/account/apps'));
    const apps = await agent.signIn(signIn, server.user);
    expect(apps.html).toContain('<h2>Connected CIMD app</h2>');
    const form = parseForms(apps.html).find((f) => f.action === '/account/apps/disconnect' && f.fields.client_id === clientId)!;
    const after = asPage(await agent.submit(form, {}));
    expect(after.html).toContain('The app was disconnected; its access was revoked.');
    expect(after.html).not.toContain('Connected CIMD app');
    expect(await isActive(server, { clientId }, access)).toBe(false);
  });

  it('accepts an https redirect URI the document lists, exactly as written, and refuses any other', async () => {
    const path = freshPath('https-redirect');
    const clientId = docs.url(path);
    docs.json(path, documentFor(clientId, { redirect_uris: ['https://app.example/oauth/callback'] }));
    const ok = await fetch(request(server.issuer, clientId, { redirect_uri: 'https://app.example/oauth/callback' }), { redirect: 'manual' });
    // Accepted: the next step is the sign-in page.
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('action="/oauth/sign-in"');
    for (const redirectUri of ['https://app.example/oauth/callback2', 'https://app.example:443/oauth/callback', 'https://app.example/oauth/callback?x=1']) {
      const page = await refusal(request(server.issuer, clientId, { redirect_uri: redirectUri }));
      expect(page.status, redirectUri).toBe(400);
      expect(page.html).toContain(alert('redirect_uri does not match any URI registered for this client.'));
    }
  });

  it('matches loopback redirect URIs with any port (RFC 8252 §7.3), the host as the document writes it', async () => {
    const path = freshPath('loopback');
    const clientId = docs.url(path);
    docs.json(path, documentFor(clientId, { redirect_uris: ['http://localhost/callback'] }));
    const ok = await fetch(request(server.issuer, clientId, { redirect_uri: 'http://localhost:53123/callback' }), { redirect: 'manual' });
    expect(ok.status).toBe(200);
    for (const redirectUri of ['http://127.0.0.1:53123/callback', 'http://localhost:53123/other', 'http://[::1]:53123/callback']) {
      const page = await refusal(request(server.issuer, clientId, { redirect_uri: redirectUri }));
      expect(page.status, redirectUri).toBe(400);
      expect(page.html).toContain(alert('redirect_uri does not match any URI registered for this client.'));
      expect(page.html).toContain(code('invalid_request'));
    }
  });

  it('warns on the consent page only when every redirect URI is on this computer', async () => {
    const path = freshPath('web-app');
    const clientId = docs.url(path);
    docs.json(path, documentFor(clientId, { redirect_uris: ['https://app.example/cb', 'http://localhost/callback'] }));
    const agent = new UserAgent(server.issuer);
    let page = asPage(await agent.navigate(request(server.issuer, clientId, { redirect_uri: 'https://app.example/cb' })));
    page = await agent.signIn(page, server.user);
    expect(page.html).toContain('</strong> says it is this app.');
    expect(page.html).not.toContain('Any program on your computer');
    expect(page.html).toContain('you go back to\n<strong>app.example</strong>.');
    // The same document's loopback redirect URI goes back to this computer.
    page = asPage(await agent.navigate(request(server.issuer, clientId, { redirect_uri: 'http://localhost:53123/callback' })));
    expect(page.html).toContain('you go back to\n<strong>localhost:53123</strong> on this computer.');
    expect(page.html).not.toContain('Any program on your computer');
  });

  describe('refusals at the authorization endpoint: a page, never a redirect', () => {
    const REFUSED: { rule: string; serve: (path: string, url: string) => void; description: (url: string) => string }[] = [
      {
        rule: 'a document whose client_id is not its URL',
        serve: (path, url) => docs.json(path, documentFor(url, { client_id: `${url}-other` })),
        description: (url) => `The client metadata document at ${url} cannot be used: its client_id is not the URL it was fetched from.`,
      },
      {
        rule: 'a redirect from the document URL (never followed)',
        serve: (path) =>
          docs.serve(path, (_req, res) => {
            res.writeHead(302, { location: `${path}-moved` }).end();
          }),
        description: (url) => `The client metadata document at ${url} cannot be used: it answered with a redirect, which is not followed.`,
      },
      {
        rule: 'a document larger than CIMD_MAX_BYTES',
        serve: (path, url) => docs.json(path, documentFor(url, { padding: 'x'.repeat(6000) })),
        description: (url) => `The client metadata document at ${url} cannot be used: it is too large.`,
      },
      {
        rule: 'a document that is not JSON',
        serve: (path) => docs.json(path, '<html>client</html>'),
        description: (url) => `The client metadata document at ${url} cannot be used: it is not JSON.`,
      },
      {
        rule: 'a JSON array',
        serve: (path, url) => docs.json(path, [documentFor(url)]),
        description: (url) => `The client metadata document at ${url} cannot be used: it is not a JSON object.`,
      },
      {
        rule: 'token_endpoint_auth_method client_secret_basic (a shared secret)',
        serve: (path, url) => docs.json(path, documentFor(url, { token_endpoint_auth_method: 'client_secret_basic' })),
        description: (url) =>
          `The client metadata document at ${url} cannot be used: its token_endpoint_auth_method must be none (a public client; shared secrets are impossible and keys are not supported).`,
      },
      {
        rule: 'a client_secret in the document',
        serve: (path, url) => docs.json(path, documentFor(url, { client_secret: 'shared' })),
        description: (url) => `The client metadata document at ${url} cannot be used: its client_secret and client_secret_expires_at must not be there: a document names a public client.`,
      },
      {
        rule: 'no client_name',
        serve: (path, url) => docs.json(path, documentFor(url, { client_name: undefined })),
        description: (url) => `The client metadata document at ${url} cannot be used: its client_name must be a string of 1 to 200 characters.`,
      },
      {
        rule: 'no redirect_uris',
        serve: (path, url) => docs.json(path, documentFor(url, { redirect_uris: undefined })),
        description: (url) => `The client metadata document at ${url} cannot be used: its redirect_uris must be a non-empty array of https or loopback http URIs.`,
      },
      {
        rule: 'only redirect URIs Lyceum cannot use',
        serve: (path, url) => docs.json(path, documentFor(url, { redirect_uris: ['http://app.example/cb', 'myapp://cb', 'https://app.example/cb#x'] })),
        description: (url) => `The client metadata document at ${url} cannot be used: none of its redirect_uris is https or a loopback http URI.`,
      },
      {
        rule: 'a status other than 200',
        serve: (path, url) => docs.json(path, documentFor(url), {}, 404),
        description: (url) => `The client metadata document at ${url} cannot be used: it answered HTTP 404.`,
      },
    ];

    for (const { rule, serve, description } of REFUSED) {
      it(`refuses ${rule} as invalid_client`, async () => {
        const path = freshPath('refused');
        const url = docs.url(path);
        serve(path, url);
        const page = await refusal(request(server.issuer, url));
        expect(page.status).toBe(400);
        expect(page.html).toContain(alert(description(url)));
        expect(page.html).toContain(code('invalid_client'));
        expect(docs.hits(`${path}-moved`)).toBe(0);
      });
    }

    it('refuses a redirect_uri the document does not list as invalid_request', async () => {
      const path = freshPath('unlisted');
      const url = docs.url(path);
      docs.json(path, documentFor(url, { redirect_uris: ['http://127.0.0.1/callback'] }));
      const page = await refusal(request(server.issuer, url, { redirect_uri: 'http://127.0.0.1:53123/elsewhere' }));
      expect(page.status).toBe(400);
      expect(page.html).toContain(alert('redirect_uri does not match any URI registered for this client.'));
      expect(page.html).toContain(code('invalid_request'));
    });

    const BAD_IDS: { rule: string; clientId: (origin: string) => string; why: string }[] = [
      { rule: 'http, not https', clientId: (o) => `${o.replace('https:', 'http:')}/clients/app.json`, why: 'it must be an https URL' },
      { rule: 'no path', clientId: (o) => `${o}/`, why: 'it must have a path, such as https://app.example/oauth/client.json' },
      { rule: 'a fragment', clientId: (o) => `${o}/clients/app.json#x`, why: 'it must not have a fragment' },
      { rule: 'a user name', clientId: (o) => o.replace('https://', 'https://me@') + '/clients/app.json', why: 'it must not carry a user name or password' },
      { rule: 'a dot segment', clientId: (o) => `${o}/clients/../app.json`, why: 'its path must not have . or .. segments' },
      { rule: 'an encoded dot segment', clientId: (o) => `${o}/clients/%2e%2E/app.json`, why: 'its path must not have . or .. segments' },
      { rule: 'the default port written out', clientId: () => 'https://app.example:443/client.json', why: 'it must be written the way a URL parser writes it (https://app.example/client.json)' },
      { rule: 'more than 200 characters', clientId: (o) => `${o}/${'x'.repeat(200)}`, why: 'it may be at most 200 characters' },
    ];
    for (const { rule, clientId, why } of BAD_IDS) {
      it(`refuses a client_id URL with ${rule} as invalid_request, fetching nothing`, async () => {
        const before = docs.hits('/clients/app.json');
        const page = await refusal(request(server.issuer, clientId(docs.origin)));
        expect(page.status).toBe(400);
        expect(page.html).toContain(alert(`client_id is a URL, so it must name a client metadata document: ${why}.`));
        expect(page.html).toContain(code('invalid_request'));
        expect(docs.hits('/clients/app.json')).toBe(before);
      });
    }
  });

  describe('the token endpoint', () => {
    it('answers invalid_client (401, JSON) for a client_id URL whose document cannot be used', async () => {
      const path = freshPath('token-refused');
      const url = docs.url(path);
      docs.json(path, documentFor(url, { client_id: 'https://elsewhere.example/app.json' }));
      for (const clientId of [url, 'http://localhost/clients/app.json']) {
        const res = await fetch(server.tokenEndpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ grant_type: 'authorization_code', code: 'lyc_ac_x', redirect_uri: 'http://127.0.0.1:1/callback', code_verifier: 'v'.repeat(43), client_id: clientId }),
        });
        expect(res.status, clientId).toBe(401);
        expect(((await res.json()) as { error: string }).error).toBe('invalid_client');
      }
    });

    it('refuses the code once the document turns to a shared-secret method, after the cached copy expired', async () => {
      const path = freshPath('turned');
      const clientId = docs.url(path);
      docs.json(path, documentFor(clientId));
      const flow = await authorizeFlow(server, { client: { clientId } });
      docs.json(path, documentFor(clientId, { token_endpoint_auth_method: 'client_secret_post' }));
      server.advance(301_000);
      const res = await exchangeCode(server, flow);
      expect({ status: res.status, body: res.json }).toEqual({
        status: 401,
        body: {
          error: 'invalid_client',
          error_description: `The client metadata document at ${clientId} cannot be used: its token_endpoint_auth_method must be none (a public client; shared secrets are impossible and keys are not supported).`,
        },
      });
      expect(docs.hits(path)).toBe(2);
    });
  });
});
