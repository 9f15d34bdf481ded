/**
 * How Lyceum fetches client metadata documents: kept within bounds by their
 * Cache-Control, one fetch however many requests wait for it, failures and
 * refusals remembered briefly, a bounded number kept, the stored client
 * refreshed by each fetch, a rate per host, a deadline, the detail of each
 * failure in the log, and no fetch at all from an address that is not
 * public unless CIMD_ALLOW_HOSTS names the host. Documents are served over
 * real https by a local server (see client-metadata-document.test.ts).
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentClientRequest as request, documentFor, errorAlert as alert, startDocumentServer, TEST_CA, type DocumentServer } from '../helpers/document-server.ts';
import { startFlowServer, type FlowServer } from '../helpers/flow.ts';
import { startTestServer } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { AUTHORIZATION_SERVER } from '../../src/util/authorization-server.ts';
import { fetchBudgetKey } from '../../src/oauth/clients/metadata-document.ts';
import { asPage, UserAgent } from '../helpers/user-agent.ts';

/** How many documents (and remembered failures) one instance keeps. */
const KEPT = AUTHORIZATION_SERVER.limits.metadataDocumentCache.entries;

let docs: DocumentServer;
let paths = 0;
const freshPath = (name: string) => `/fetching/${name}-${++paths}.json`;

beforeAll(async () => {
  docs = await startDocumentServer();
});
afterAll(() => docs?.close());

/** The JSON lines the server logs from now on, kept here instead of written to stdout. */
function captureLog(server: FlowServer): Record<string, unknown>[] {
  const lines: Record<string, unknown>[] = [];
  // Every logger of the app, each request's too, writes to its root logger's stream.
  const stream = (server.app.log as unknown as Record<symbol, { write(line: string): void }>)[pino.symbols.streamSym]!;
  stream.write = (line) => void lines.push(JSON.parse(line) as Record<string, unknown>);
  return lines;
}

/**
 * The documents come from this process's own https server, which shares its
 * event loop with the app and the test: on a busy host a fetch can take
 * seconds. Only the timeout test sets the timeout it is about.
 */
const LOCAL_DOCUMENTS = { CIMD_ALLOW_HOSTS: 'localhost', CIMD_FETCH_TIMEOUT_MS: '20000' };

/** The authorization endpoint's answer: 200 is the sign-in page (the client was accepted). */
async function authorize(server: { issuer: string }, clientId: string): Promise<{ status: number; html: string; headers: Headers }> {
  const res = await fetch(request(server.issuer, clientId), { redirect: 'manual' });
  expect(res.headers.get('location')).toBeNull();
  return { status: res.status, html: await res.text(), headers: res.headers };
}

/** A valid document at a fresh path, with these response headers. */
function serveDocument(name: string, headers: Record<string, string> = {}): { path: string; url: string } {
  const path = freshPath(name);
  const url = docs.url(path);
  docs.json(path, documentFor(url), headers);
  return { path, url };
}

describe.each(STORE_KINDS)('fetching client metadata documents (%s)', (kind) => {
  let server: FlowServer;

  beforeAll(async () => {
    server = await startFlowServer(kind, { ...LOCAL_DOCUMENTS, CIMD_FETCHES_PER_HOST_PER_MINUTE: '0' }, { extraCa: TEST_CA });
  });
  afterAll(() => server?.stop());

  it('fetches a document once for two authorizations', async () => {
    const { path, url } = serveDocument('twice');
    expect((await authorize(server, url)).status).toBe(200);
    expect((await authorize(server, url)).status).toBe(200);
    expect(docs.hits(path)).toBe(1);
  });

  it('stores the client again when its row was deleted while the document is still kept', async () => {
    const { path, url } = serveDocument('row-deleted');
    expect((await authorize(server, url)).status).toBe(200);
    expect((await server.deps.store.clients.find(url))?.metadata.client_name).toBe('Claude Code (test)');
    // As `lyceum clients delete` or the purge of never-used clients does.
    expect(await server.deps.store.clients.delete(url)).toBe(true);
    expect((await authorize(server, url)).status).toBe(200);
    expect((await server.deps.store.clients.find(url))?.id).toBe(url);
    expect(docs.hits(path)).toBe(1);
  });

  it('asks for the document as JSON (Accept: application/json)', async () => {
    const path = freshPath('accept');
    const url = docs.url(path);
    const accepts: (string | undefined)[] = [];
    docs.serve(path, (req, res) => {
      accepts.push(req.headers.accept);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(documentFor(url)));
    });
    expect((await authorize(server, url)).status).toBe(200);
    expect(accepts).toEqual(['application/json']);
  });

  it('stores what a document says when it is fetched again: the connected apps page shows its new name', async () => {
    const path = freshPath('renamed');
    const url = docs.url(path);
    docs.json(path, documentFor(url, { client_name: 'Gradebook Sync' }));
    const thaw = server.freezeClock();
    try {
      const agent = new UserAgent(server.issuer);
      await agent.authorize(request(server.issuer, url), server.user);
      expect(asPage(await agent.navigate('/account/apps')).html).toContain('<h2>Gradebook Sync</h2>');
      docs.json(path, documentFor(url, { client_name: 'Gradebook Sync 2' }));
      // Once the kept copy has expired, the next authorization fetches the document again.
      server.advance(300_000);
      const page = await authorize(server, url);
      expect(page.html).toContain('<strong>Gradebook Sync 2</strong> wants to connect');
      expect(docs.hits(path)).toBe(2);
      const apps = asPage(await agent.navigate('/account/apps')).html;
      expect(apps).toContain('<h2>Gradebook Sync 2</h2>');
      expect(apps).not.toContain('<h2>Gradebook Sync</h2>');
    } finally {
      thaw();
    }
  });

  it('keeps to its own copy of a document, and leaves the row another instance stored since as it is', async () => {
    const path = freshPath('two-instances');
    const url = docs.url(path);
    const other = await startTestServer(kind, { ...LOCAL_DOCUMENTS, CIMD_FETCHES_PER_HOST_PER_MINUTE: '0', DATABASE_URL: server.databaseUrl }, { extraCa: TEST_CA });
    try {
      docs.json(path, documentFor(url, { client_name: 'Quiz Maker' }));
      const agent = new UserAgent(server.issuer);
      await agent.authorize(request(server.issuer, url), server.user);
      expect(asPage(await agent.navigate('/account/apps')).html).toContain('<h2>Quiz Maker</h2>');
      // The document changes; the other instance, which kept no copy, fetches the new one and stores it.
      docs.json(path, documentFor(url, { client_name: 'Quiz Maker Pro' }));
      expect((await authorize(other, url)).html).toContain('<strong>Quiz Maker Pro</strong> wants to connect');
      expect(docs.hits(path)).toBe(2);
      expect(asPage(await agent.navigate('/account/apps')).html).toContain('<h2>Quiz Maker Pro</h2>');
      // This instance still keeps its copy: it names the app by it, and writes nothing over the newer row.
      expect((await authorize(server, url)).html).toContain('<strong>Quiz Maker</strong> wants to connect');
      expect(docs.hits(path)).toBe(2);
      const apps = asPage(await agent.navigate('/account/apps')).html;
      expect(apps).toContain('<h2>Quiz Maker Pro</h2>');
      expect(apps).not.toContain('<h2>Quiz Maker</h2>');
    } finally {
      await other.close();
    }
  });

  it('fetches a document once for ten concurrent authorizations', async () => {
    const path = freshPath('concurrent');
    const url = docs.url(path);
    // Answered after a pause, so every request arrives while the first fetch is under way.
    docs.serve(path, (_req, res) => void setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(documentFor(url))), 300));
    const results = await Promise.all(Array.from({ length: 10 }, () => authorize(server, url)));
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(docs.hits(path)).toBe(1);
  });

  it('remembers a failed fetch for a minute, then fetches again', async () => {
    const path = freshPath('failing');
    const url = docs.url(path);
    docs.json(path, { error: 'down' }, {}, 500);
    const description = alert(`The client metadata document at ${url} cannot be used: it answered HTTP 500.`);
    expect((await authorize(server, url)).html).toContain(description);
    // Fixed at once, but the failure is still remembered.
    docs.json(path, documentFor(url));
    const again = await authorize(server, url);
    expect(again.status).toBe(400);
    expect(again.html).toContain(description);
    expect(docs.hits(path)).toBe(1);
    server.advance(61_000);
    expect((await authorize(server, url)).status).toBe(200);
    expect(docs.hits(path)).toBe(2);
  });

  it('remembers a refused document for a minute, then fetches it again', async () => {
    const path = freshPath('refused');
    const url = docs.url(path);
    docs.json(path, documentFor(url, { client_id: `${url}-other` }));
    const description = alert(`The client metadata document at ${url} cannot be used: its client_id is not the URL it was fetched from.`);
    const thaw = server.freezeClock();
    try {
      const first = await authorize(server, url);
      expect(first.status).toBe(400);
      expect(first.html).toContain(description);
      // Fixed at once, but the refusal is kept for its minute.
      docs.json(path, documentFor(url));
      server.advance(60_000 - 1);
      const again = await authorize(server, url);
      expect(again.status).toBe(400);
      expect(again.html).toContain(description);
      expect(docs.hits(path)).toBe(1);
      server.advance(1);
      expect((await authorize(server, url)).status).toBe(200);
      expect(docs.hits(path)).toBe(2);
    } finally {
      thaw();
    }
  });

  // The draft: "The authorization server MUST NOT automatically follow HTTP redirects when fetching the
  // Client ID Metadata Document", and it "MUST treat all other HTTP status codes [than 200] as an error".
  const STATUSES: { status: number; why: string }[] = [
    { status: 300, why: 'it answered with a redirect, which is not followed' },
    { status: 399, why: 'it answered with a redirect, which is not followed' },
    { status: 400, why: 'it answered HTTP 400' },
    { status: 204, why: 'it answered HTTP 204' },
  ];
  for (const { status, why } of STATUSES) {
    it(`refuses a document answered with HTTP ${status}: ${why}`, async () => {
      const path = freshPath(`status-${status}`);
      const url = docs.url(path);
      docs.serve(path, (_req, res) => void res.writeHead(status, { 'content-type': 'application/json', location: `${path}-moved` }).end(status === 204 ? undefined : JSON.stringify(documentFor(url))));
      const page = await authorize(server, url);
      expect(page.status).toBe(400);
      expect(page.html).toContain(alert(`The client metadata document at ${url} cannot be used: ${why}.`));
      expect(page.html).toContain('Error code: <code>invalid_client</code>.');
      expect(docs.hits(`${path}-moved`)).toBe(0);
    });
  }

  // A list is sent as that many Cache-Control lines, which an HTTP recipient reads as one list (RFC 9110 §5.3).
  const LIFETIMES: { cacheControl: string | string[] | undefined; keptSeconds: number }[] = [
    { cacheControl: undefined, keptSeconds: 300 },
    { cacheControl: 'no-store', keptSeconds: 300 },
    { cacheControl: 'no-cache', keptSeconds: 300 },
    { cacheControl: 'max-age=60', keptSeconds: 300 },
    { cacheControl: 'public, max-age=600', keptSeconds: 600 },
    { cacheControl: 'max-age=31536000, immutable', keptSeconds: 86_400 },
    // no-store and no-cache win over a max-age beside them, wherever they stand and however they are written.
    { cacheControl: 'No-Store, max-age=600', keptSeconds: 300 },
    { cacheControl: 'max-age=600, no-cache', keptSeconds: 300 },
    { cacheControl: 'max-age=600,no-store', keptSeconds: 300 },
    { cacheControl: ['public', 'max-age=600'], keptSeconds: 600 },
    { cacheControl: ['max-age=600', 'no-cache'], keptSeconds: 300 },
    // Only whole directives count: x-no-cache is not no-cache, s-maxage (for shared caches) is not max-age.
    { cacheControl: 'max-age=600, x-no-cache', keptSeconds: 600 },
    { cacheControl: 's-maxage=600', keptSeconds: 300 },
    { cacheControl: 'max-age = 600', keptSeconds: 600 },
  ];
  for (const { cacheControl, keptSeconds } of LIFETIMES) {
    const shown = cacheControl === undefined ? '(none)' : [cacheControl].flat().join(' + ');
    it(`keeps a document served with Cache-Control ${shown} for ${keptSeconds} s, then fetches it again`, async () => {
      const path = freshPath('lifetime');
      const url = docs.url(path);
      docs.serve(path, (_req, res) => {
        if (cacheControl !== undefined) res.setHeader('cache-control', cacheControl);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(documentFor(url)));
      });
      const thaw = server.freezeClock();
      try {
        expect((await authorize(server, url)).status).toBe(200);
        server.advance(keptSeconds * 1000 - 1);
        expect((await authorize(server, url)).status).toBe(200);
        expect(docs.hits(path)).toBe(1);
        server.advance(1);
        expect((await authorize(server, url)).status).toBe(200);
        expect(docs.hits(path)).toBe(2);
      } finally {
        thaw();
      }
    });
  }

  it('gives up on a document that does not arrive within CIMD_FETCH_TIMEOUT_MS', async () => {
    const slow = await startFlowServer(kind, { CIMD_ALLOW_HOSTS: 'localhost', CIMD_FETCH_TIMEOUT_MS: '500' }, { extraCa: TEST_CA });
    try {
      const path = freshPath('slow');
      const url = docs.url(path);
      docs.serve(path, (_req, res) => void setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(documentFor(url))), 3000).unref());
      const started = Date.now();
      const page = await authorize(slow, url);
      expect(Date.now() - started).toBeLessThan(2500);
      expect(page.status).toBe(400);
      expect(page.html).toContain(alert(`The client metadata document at ${url} cannot be used: it could not be fetched.`));
    } finally {
      await slow.stop();
    }
  });
});

describe('the address check and the rate per host (sqlite)', () => {
  it('fetches nothing from a host that resolves to a loopback address unless CIMD_ALLOW_HOSTS names it', async () => {
    const server = await startFlowServer('sqlite', {}, { extraCa: TEST_CA });
    try {
      const { path, url } = serveDocument('private');
      const page = await authorize(server, url);
      expect(page.status).toBe(400);
      expect(page.html).toContain(alert(`The client metadata document at ${url} cannot be used: it could not be fetched.`));
      expect(page.html).toContain('Error code: <code>invalid_client</code>.');
      // The same for the address written as an IP literal.
      const literal = url.replace('localhost', '127.0.0.1');
      expect((await authorize(server, literal)).html).toContain(alert(`The client metadata document at ${literal} cannot be used: it could not be fetched.`));
      // And as IPv6 literals: IPv4-mapped, IPv4-compatible (::127.0.0.1), and reserved outside 2000::/3.
      for (const host of ['[::ffff:7f00:1]', '[::7f00:1]', '[::1:7f00:1]']) {
        const v6 = url.replace('localhost', host);
        expect((await authorize(server, v6)).html, host).toContain(alert(`The client metadata document at ${v6} cannot be used: it could not be fetched.`));
      }
      expect(docs.hits(path)).toBe(0);
    } finally {
      await server.stop();
    }
  });

  it('says the same of a host that resolves privately and one that does not resolve: the page maps no internal name', async () => {
    const server = await startFlowServer('sqlite', {}, { extraCa: TEST_CA });
    try {
      const { url } = serveDocument('oracle');
      const privateName = url;
      const unresolvable = url.replace('localhost', 'no-such-host.invalid');
      const pages = [await authorize(server, privateName), await authorize(server, unresolvable)];
      for (const [page, id] of [
        [pages[0]!, privateName],
        [pages[1]!, unresolvable],
      ] as const) {
        expect(page.status).toBe(400);
        expect(page.html).toContain(alert(`The client metadata document at ${id} cannot be used: it could not be fetched.`));
      }
      // Nothing else on the two pages tells them apart.
      expect(pages[0]!.html.replaceAll(privateName, 'URL')).toBe(pages[1]!.html.replaceAll(unresolvable, 'URL'));
    } finally {
      await server.stop();
    }
  });

  it('fetches at most CIMD_FETCHES_PER_HOST_PER_MINUTE documents from one host, then answers 429 with Retry-After', async () => {
    const server = await startFlowServer('sqlite', { ...LOCAL_DOCUMENTS, CIMD_FETCHES_PER_HOST_PER_MINUTE: '2' }, { extraCa: TEST_CA });
    try {
      const thaw = server.freezeClock();
      const [a, b, c] = [serveDocument('rate-a'), serveDocument('rate-b'), serveDocument('rate-c')];
      for (const { url } of [a, b]) {
        const page = await authorize(server, url);
        expect(page.status, page.html).toBe(200);
      }
      const limited = await authorize(server, c.url);
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toBe('30');
      expect(limited.html).toContain(alert('Lyceum fetched client metadata documents from localhost too often just now; try again shortly.'));
      expect(limited.html).toContain('Error code: <code>too_many_requests</code>.');
      expect(docs.hits(c.path)).toBe(0);
      // Documents already kept cost nothing.
      expect((await authorize(server, a.url)).status).toBe(200);
      // One fetch is earned back every 30 seconds.
      server.advance(30_000);
      expect((await authorize(server, c.url)).status).toBe(200);
      expect(docs.hits(c.path)).toBe(1);
      thaw();
    } finally {
      await server.stop();
    }
  });
});

describe('the fetch budget of a registrable domain (sqlite)', () => {
  it('is keyed by the Public Suffix List, private suffixes included, so each owner of a github.io site has their own', () => {
    expect(['a.b.example.co.uk', 'example.co.uk', 'example.co.uk.'].map(fetchBudgetKey)).toEqual(['example.co.uk', 'example.co.uk', 'example.co.uk']);
    expect(['one.github.io', 'docs.one.github.io', 'two.github.io'].map(fetchBudgetKey)).toEqual(['one.github.io', 'one.github.io', 'two.github.io']);
    expect(['127.0.0.1', '[::1]', 'localhost', 'localhost.'].map(fetchBudgetKey)).toEqual(['127.0.0.1', '[::1]', 'localhost', 'localhost']);
  });

  it('is shared by its subdomains and its name with a trailing dot: new names earn no new fetches', async () => {
    const server = await startFlowServer('sqlite', { CIMD_FETCHES_PER_HOST_PER_MINUTE: '2' });
    try {
      const thaw = server.freezeClock();
      // None of these resolve: each fetch fails, and each spends the budget of lyceum-test.example.
      const id = (host: string) => `https://${host}/client.json`;
      for (const host of ['a.lyceum-test.example', 'b.lyceum-test.example']) expect((await authorize(server, id(host))).status, host).toBe(400);
      for (const host of ['c.lyceum-test.example', 'lyceum-test.example.', 'x.y.lyceum-test.example']) {
        const limited = await authorize(server, id(host));
        expect(limited.status, host).toBe(429);
        expect(limited.html).toContain(alert('Lyceum fetched client metadata documents from lyceum-test.example too often just now; try again shortly.'));
      }
      // Another registrable domain has a budget of its own.
      expect((await authorize(server, id('other-test.example'))).status).toBe(400);
      thaw();
    } finally {
      await server.stop();
    }
  });
});

describe('the bound on documents kept (sqlite)', () => {
  it(`keeps at most ${KEPT} documents and failures, forgetting the one kept longest first`, async () => {
    const server = await startFlowServer('sqlite', { ...LOCAL_DOCUMENTS, CIMD_FETCHES_PER_HOST_PER_MINUTE: '0' }, { extraCa: TEST_CA });
    try {
      const oldest = serveDocument('kept-first');
      const next = serveDocument('kept-second');
      expect((await authorize(server, oldest.url)).status).toBe(200);
      expect((await authorize(server, next.url)).status).toBe(200);
      // Fill the rest, and one more, with failures, 25 at a time: 127.0.0.1 is not a name CIMD_ALLOW_HOSTS exempts from the
      // address check, so each is refused as not public without a connection, and remembered as refused.
      const failing = Array.from({ length: KEPT - 1 }, (_, i) => `https://127.0.0.1/fetching/not-public-${i}.json`);
      for (let i = 0; i < failing.length; i += 25) {
        const pages = await Promise.all(failing.slice(i, i + 25).map((url) => authorize(server, url)));
        expect(pages.map((p) => p.status)).toEqual(pages.map(() => 400));
      }
      // The second is still kept; the first had to go, and is fetched again.
      expect((await authorize(server, next.url)).status).toBe(200);
      expect(docs.hits(next.path)).toBe(1);
      expect((await authorize(server, oldest.url)).status).toBe(200);
      expect(docs.hits(oldest.path)).toBe(2);
    } finally {
      await server.stop();
    }
  });
});

describe('what the log says of a document that cannot be used (sqlite)', () => {
  let server: FlowServer;
  let lines: Record<string, unknown>[];

  beforeAll(async () => {
    server = await startFlowServer('sqlite', { ...LOCAL_DOCUMENTS, CIMD_FETCHES_PER_HOST_PER_MINUTE: '0', LOG_LEVEL: 'info' }, { extraCa: TEST_CA });
    lines = captureLog(server);
  });
  afterAll(() => server?.stop());

  // The page tells the person why; the log line tells the operator what exactly happened.
  const FAILURES: { what: string; serve: (path: string, url: string) => void; clientId?: (url: string) => string; why: string; detail: string }[] = [
    {
      what: 'a document larger than CIMD_MAX_BYTES',
      serve: (path, url) => docs.json(path, documentFor(url, { padding: 'x'.repeat(6000) })),
      why: 'it is too large',
      detail: 'too_large: the answer is larger than 5120 bytes',
    },
    {
      what: 'an address that is not public',
      serve: () => {},
      clientId: (url) => url.replace('localhost', '127.0.0.1'),
      why: 'it could not be fetched',
      detail: 'forbidden_address: 127.0.0.1 resolves to an address that is not public',
    },
    {
      what: 'an IPv4-compatible IPv6 literal of a loopback address',
      serve: () => {},
      clientId: (url) => url.replace('localhost', '[::7f00:1]'),
      why: 'it could not be fetched',
      detail: 'forbidden_address: ::7f00:1 resolves to an address that is not public',
    },
    {
      what: 'a redirect',
      serve: (path) => docs.serve(path, (_req, res) => void res.writeHead(302, { location: `${path}-moved` }).end()),
      why: 'it answered with a redirect, which is not followed',
      detail: 'HTTP 302',
    },
    {
      what: 'a status other than 200',
      serve: (path) => docs.json(path, { error: 'down' }, {}, 503),
      why: 'it answered HTTP 503',
      detail: 'HTTP 503',
    },
    {
      what: 'a document that breaks a rule',
      serve: (path, url) => docs.json(path, documentFor(url, { client_id: `${url}-other` })),
      why: 'its client_id is not the URL it was fetched from',
      detail: 'refused document',
    },
  ];
  for (const { what, serve, clientId, why, detail } of FAILURES) {
    it(`logs the refusal of ${what} with its detail: ${detail}`, async () => {
      const path = freshPath('logged');
      const url = clientId ? clientId(docs.url(path)) : docs.url(path);
      serve(path, url);
      lines.length = 0;
      const page = await authorize(server, url);
      expect(page.status).toBe(400);
      expect(page.html).toContain(alert(`The client metadata document at ${url} cannot be used: ${why}.`));
      expect(lines.filter((l) => l.msg === 'request refused')).toEqual([expect.objectContaining({ level: 30, error: 'invalid_client', detail })]);
    });
  }
});
