/**
 * The endpoint table of /auth.md, stated by hand as a client reads it: each
 * endpoint's methods come from the route declarations (through the OpenAPI
 * document), so a route that gains or loses a method changes the table.
 * The MCP row once said GET, which the server answers with 405.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const EXPECTED: [method: string, path: string][] = [
  ['POST', '/api/oauth/register'],
  ['GET', '/oauth/authorize'],
  ['POST', '/api/oauth/token'],
  ['POST', '/api/oauth/device_authorization'],
  ['GET', '/oauth/device'],
  ['POST', '/api/oauth/revoke'],
  ['POST', '/api/oauth/introspect'],
  ['GET, POST', '/api/oauth/userinfo'],
  ['GET', '/.well-known/jwks.json'],
  ['GET', '/.well-known/oauth-authorization-server'],
  ['GET', '/.well-known/openid-configuration'],
  ['GET', '/.well-known/oauth-protected-resource'],
  ['GET', '/.well-known/oauth-protected-resource/mcp'],
  ['GET', '/openapi.json'],
  ['GET', '/auth.md'],
  ['GET', '/llms.txt'],
  ['GET', '/pricing.md'],
  ['POST', '/mcp'],
];

describe('/auth.md endpoint table', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite');
  });
  afterAll(() => server.close());

  it('names each endpoint with the methods it is served on', async () => {
    const res = await fetch(`${server.issuer}/auth.md`);
    expect(res.status).toBe(200);
    const text = await res.text();
    const section = text.slice(text.indexOf('## Endpoints'), text.indexOf('## Flow at a glance'));
    const rows = [...section.matchAll(/^\| [^|]+ \| ([A-Z, ]+) \| `([^`]+)` \|$/gm)].map((m) => [m[1]!, m[2]!.slice(server.issuer.length)]);
    expect(rows).toEqual(EXPECTED);
  });
});
