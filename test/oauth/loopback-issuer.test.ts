/**
 * An http issuer is allowed only on a loopback host (RFC 8414 §2: "a URL that
 * uses the "https" scheme", relaxed for a server on the developer's own
 * machine). Each loopback name is stated here by hand, and checked over HTTP:
 * the server starts and its metadata names that issuer.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, startTestServer, type TestServer } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

describe.each(STORE_KINDS)('an http issuer on each loopback host name (%s)', (kind) => {
  const started: TestServer[] = [];
  afterAll(async () => {
    for (const s of started) await s.close();
  });

  for (const host of ['127.0.0.1', 'localhost', '[::1]']) {
    it(`starts with PUBLIC_URL http://${host}:<port> and names it as the issuer`, async () => {
      const port = await freePort();
      const server = await startTestServer(kind, { PORT: String(port), PUBLIC_URL: `http://${host}:${port}` });
      started.push(server);
      const res = await fetch(`${server.url}/.well-known/oauth-authorization-server`);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { issuer: string }).issuer).toBe(`http://${host}:${port}`);
    });
  }
});
