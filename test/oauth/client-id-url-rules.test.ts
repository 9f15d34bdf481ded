/**
 * The rules for a client_id that is a Client Identifier URL
 * (draft-ietf-oauth-client-id-metadata-document), and which redirect_uris
 * of the document found there Lyceum keeps, stated case by case as a client
 * sees them at the authorization endpoint, over real HTTP. The draft: the
 * URL "MUST use the https URL scheme", "MUST contain a path component",
 * "MUST NOT contain single-dot or double-dot path components" and "MUST NOT
 * contain a userinfo component". The documents are served over https by a
 * local server (test/helpers/document-server.ts); CIMD_ALLOW_HOSTS names
 * localhost, which otherwise the address check refuses.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentClientRequest, documentFor, startDocumentServer, TEST_CA, type DocumentServer } from '../helpers/document-server.ts';
import { startFlowServer, type FlowServer } from '../helpers/flow.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

let docs: DocumentServer;
let server: FlowServer;
let paths = 0;
/** A path of its own for each test, so no test sees another's cached document. */
const freshPath = (name: string) => `/clients/${name}-${++paths}.json`;

beforeAll(async () => {
  docs = await startDocumentServer();
  // The rules do not depend on the store: one kind is enough.
  server = await startFlowServer(STORE_KINDS[0]!, { CIMD_ALLOW_HOSTS: 'localhost', CIMD_FETCHES_PER_HOST_PER_MINUTE: '0' }, { extraCa: TEST_CA });
});
afterAll(async () => {
  await server?.stop();
  await docs?.close();
});

/** The authorization request of a public client with PKCE; fields given replace the defaults. */
function request(clientId: string, over: Record<string, string | undefined> = {}): string {
  return documentClientRequest(server.issuer, clientId, over);
}

/** What the authorization endpoint answers: its status and the page's text. */
async function authorize(clientId: string, over: Record<string, string> = {}): Promise<{ status: number; html: string; location: string | null }> {
  const res = await fetch(request(clientId, over), { redirect: 'manual' });
  return { status: res.status, html: await res.text(), location: res.headers.get('location') };
}

/** The request was accepted: the next step is the sign-in page. */
function expectAccepted(answer: { status: number; html: string; location: string | null }, what: string): void {
  expect(answer.status, what).toBe(200);
  expect(answer.location, what).toBeNull();
  expect(answer.html, what).toContain('action="/oauth/sign-in"');
}

/** The request was refused with this description and error code, as a page (never a redirect). */
function expectRefused(answer: { status: number; html: string; location: string | null }, description: string, error: string, what: string): void {
  expect(answer.status, what).toBe(400);
  expect(answer.location, what).toBeNull();
  expect(answer.html, what).toContain(`<p class="error" role="alert">${description}</p>`);
  expect(answer.html, what).toContain(`Error code: <code>${error}</code>.`);
}

const badClientId = (why: string) => `client_id is a URL, so it must name a client metadata document: ${why}.`;

describe('the client_id URL rules', () => {
  /** A client_id naming a document that is served, so a refusal shows it was refused before any fetch. */
  function served(clientId: string): string {
    const path = clientId.slice(docs.origin.length);
    docs.json(path, documentFor(clientId));
    return path;
  }

  it('accepts a client_id of exactly 200 characters, fetching its document', async () => {
    const prefix = `${docs.origin}/clients/long-${++paths}-`;
    const clientId = `${prefix}${'x'.repeat(200 - prefix.length - '.json'.length)}.json`;
    expect(clientId).toHaveLength(200);
    const path = served(clientId);
    expectAccepted(await authorize(clientId), clientId);
    expect(docs.hits(path)).toBe(1);
  });

  it('refuses a client_id of 201 characters, fetching nothing', async () => {
    const prefix = `${docs.origin}/clients/long-${++paths}-`;
    const clientId = `${prefix}${'x'.repeat(201 - prefix.length - '.json'.length)}.json`;
    expect(clientId).toHaveLength(201);
    const path = served(clientId);
    expectRefused(await authorize(clientId), badClientId('it may be at most 200 characters'), 'invalid_request', clientId);
    expect(docs.hits(path)).toBe(0);
  });

  it('refuses an http client_id that has an https URL further on', async () => {
    const clientId = `${docs.origin.replace('https:', 'http:')}/https://localhost/clients/app.json`;
    expectRefused(await authorize(clientId), badClientId('it must be an https URL'), 'invalid_request', clientId);
  });

  it('refuses an https client_id that no URL parser accepts', async () => {
    for (const clientId of ['https://local host/clients/app.json', 'https://[::1/clients/app.json', `${docs.origin}0000000/clients/app.json`]) {
      expectRefused(await authorize(clientId), badClientId('it is not a valid URL'), 'invalid_request', clientId);
    }
  });

  it('refuses a client_id with a user name, a password or both, fetching nothing', async () => {
    const withUser = (userinfo: string) => docs.origin.replace('https://', `https://${userinfo}@`) + freshPath('userinfo');
    for (const clientId of [withUser('me'), withUser(':pw'), withUser('me:pw')]) {
      const path = served(clientId);
      expectRefused(await authorize(clientId), badClientId('it must not carry a user name or password'), 'invalid_request', clientId);
      expect(docs.hits(path)).toBe(0);
    }
  });

  it('refuses a client_id with an empty user information part, which a URL parser leaves out', async () => {
    for (const userinfo of ['@', ':@']) {
      const path = freshPath('empty-userinfo');
      const clientId = docs.origin.replace('https://', `https://${userinfo}`) + path;
      docs.json(path, documentFor(clientId));
      expectRefused(await authorize(clientId), badClientId(`it must be written the way a URL parser writes it (${docs.url(path)})`), 'invalid_request', clientId);
      expect(docs.hits(path)).toBe(0);
    }
  });

  it('refuses a client_id with no path, or a query and no path, rather than add the / a URL parser would', async () => {
    for (const clientId of [docs.origin, `${docs.origin}?client=app`]) {
      expectRefused(await authorize(clientId), badClientId('it must have a path, such as https://app.example/oauth/client.json'), 'invalid_request', clientId);
    }
  });

  it('refuses a . or .. segment anywhere in the path, the last one included', async () => {
    for (const path of ['/./clients/app.json', '/clients/./app.json', '/clients/app.json/.', '/clients/app.json/..', '/clients/%2E/app.json']) {
      expectRefused(await authorize(docs.url(path)), badClientId('its path must not have . or .. segments'), 'invalid_request', path);
    }
  });

  it('accepts path segments that only start or end with dots, or have three, fetching the document', async () => {
    for (const segment of ['.well-known', 'v1.', '...', '%2e%2e%2e']) {
      const clientId = docs.url(`/clients/${segment}/app-${++paths}.json`);
      const path = served(clientId);
      expectAccepted(await authorize(clientId), clientId);
      expect(docs.hits(path)).toBe(1);
    }
  });
});

describe('the redirect_uris of a document Lyceum keeps', () => {
  /** A client whose document lists these redirect_uris; returns its client_id. */
  function clientListing(name: string, redirectUris: unknown[]): string {
    const path = freshPath(name);
    const clientId = docs.url(path);
    docs.json(path, documentFor(clientId, { redirect_uris: redirectUris }));
    return clientId;
  }
  const unlisted = 'redirect_uri does not match any URI registered for this client.';
  const LONGEST = `https://app.example/${'a'.repeat(2000 - 'https://app.example/'.length)}`;

  it('drops entries that are not strings and keeps the rest', async () => {
    const clientId = clientListing('not-strings', [42, null, { uri: 'https://app.example/cb' }, ['https://app.example/cb'], 'https://app.example/cb']);
    expectAccepted(await authorize(clientId, { redirect_uri: 'https://app.example/cb' }), 'https://app.example/cb');
  });

  it('keeps an https redirect URI of exactly 2000 characters and drops a longer one', async () => {
    const clientId = clientListing('long-redirect', [LONGEST, `${LONGEST}b`]);
    expectAccepted(await authorize(clientId, { redirect_uri: LONGEST }), 'exactly 2000 characters');
    expectRefused(await authorize(clientId, { redirect_uri: `${LONGEST}b` }), unlisted, 'invalid_request', '2001 characters');
  });

  it('drops an https redirect URI with a user name, a password or both', async () => {
    const withUserinfo = ['https://me@app.example/cb', 'https://:pw@app.example/cb', 'https://me:pw@app.example/cb'];
    const clientId = clientListing('userinfo-redirect', [...withUserinfo, 'https://app.example/cb']);
    expectAccepted(await authorize(clientId, { redirect_uri: 'https://app.example/cb' }), 'https://app.example/cb');
    for (const redirectUri of withUserinfo) expectRefused(await authorize(clientId, { redirect_uri: redirectUri }), unlisted, 'invalid_request', redirectUri);
  });

  it('drops an https redirect URI that no URL parser accepts', async () => {
    const unparsable = ['https://app.example:99999/cb', 'https://[::1/cb'];
    const clientId = clientListing('unparsable-redirect', [...unparsable, 'https://app.example/cb']);
    expectAccepted(await authorize(clientId, { redirect_uri: 'https://app.example/cb' }), 'https://app.example/cb');
    for (const redirectUri of unparsable) expectRefused(await authorize(clientId, { redirect_uri: redirectUri }), unlisted, 'invalid_request', redirectUri);
  });

  it('refuses a document all of whose redirect_uris are dropped as invalid_client', async () => {
    const clientId = clientListing('none-usable', [42, null, '', `${LONGEST}b`, 'https://me@app.example/cb', 'https://:pw@app.example/cb', 'https://app.example:99999/cb']);
    expectRefused(
      await authorize(clientId, { redirect_uri: 'https://app.example/cb' }),
      `The client metadata document at ${clientId} cannot be used: none of its redirect_uris is https or a loopback http URI.`,
      'invalid_client',
      clientId,
    );
  });
});
