import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../helpers/server.ts';
import { spawnServe } from '../helpers/spawn-serve.ts';

interface Line {
  level: number;
  msg: string;
  reqId?: string;
  client_id?: string;
  req?: { method: string; url: string };
  res?: { statusCode: number };
  responseTime?: number;
}

interface Sent {
  path: string;
  headers?: Record<string, string>;
  /** A JSON body, sent with POST. */
  json?: unknown;
}

/**
 * `lyceum serve` with the given logging settings, the given requests, then
 * SIGTERM: returns everything it wrote to stdout (the log is written
 * asynchronously, so this also shows that nothing is lost on a graceful stop).
 */
async function serveAndLog(settings: Record<string, string>, requests: Sent[]): Promise<{ raw: string; lines: Line[] }> {
  const port = await freePort();
  const file = join(mkdtempSync(join(tmpdir(), 'lyceum-log-')), 'lyceum.sqlite');
  const server = await spawnServe({ ...settings, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: file });
  try {
    for (const r of requests) {
      const res = await fetch(`http://127.0.0.1:${port}${r.path}`, {
        headers: { ...(r.json === undefined ? {} : { 'content-type': 'application/json' }), ...r.headers },
        ...(r.json === undefined ? {} : { method: 'POST', body: JSON.stringify(r.json) }),
      });
      await res.arrayBuffer();
    }
  } finally {
    expect(await server.stop()).toBe(0);
  }
  const raw = server.stdout() + server.stderr();
  const lines = server
    .stdout()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Line);
  return { raw, lines };
}

const completed = (lines: Line[]) => lines.filter((l) => l.msg === 'request completed' || l.msg === 'request errored');
const urls = (lines: Line[]) => completed(lines).map((l) => `${l.req?.method} ${l.req?.url} ${l.res?.statusCode}`);

const REGISTRATION = { client_name: 'Log test', redirect_uris: ['http://127.0.0.1:8765/callback'], token_endpoint_auth_method: 'none' };

describe('request log', () => {
  it('by default (no ACCESS_LOG): events with their request id, no line per request', async () => {
    const { raw, lines } = await serveAndLog({ LOG_LEVEL: 'info' }, [
      { path: '/api/v1/courses?limit=2' },
      { path: '/api/v1/students', headers: { authorization: 'Bearer lyc_at_not-a-real-token-0123456789' } },
      { path: '/api/oauth/register', json: REGISTRATION },
      { path: '/.well-known/no-such-document' },
    ]);
    expect(completed(lines)).toEqual([]);
    const registered = lines.filter((l) => l.msg === 'client registered');
    expect(registered).toHaveLength(1);
    expect(registered[0]).toMatchObject({ level: 30, client_id: expect.stringMatching(/./), reqId: expect.stringMatching(/./) });
    expect(raw).not.toContain('not-a-real-token');
  }, 90_000);

  it('ACCESS_LOG=true at info: one JSON line per API request, credentials redacted, public documents and health checks left out, all of it written before exit', async () => {
    const { raw, lines } = await serveAndLog({ LOG_LEVEL: 'info', ACCESS_LOG: 'true' }, [
      { path: '/healthz' },
      { path: '/readyz' },
      { path: '/.well-known/openid-configuration' },
      { path: '/.well-known/oauth-protected-resource' },
      { path: '/auth.md' },
      { path: '/api/v1/courses?limit=2' },
      { path: '/api/v1/students', headers: { authorization: 'Bearer lyc_at_not-a-real-token-0123456789' } },
      { path: '/api/v1/courses?access_token=lyc_at_secret-in-query-0123456789' },
      { path: '/.well-known/no-such-document' },
    ]);
    expect(urls(lines)).toEqual(['GET /api/v1/courses?limit=2 200', 'GET /api/v1/students 401', 'GET /api/v1/courses?access_token=%5Bredacted%5D 400', 'GET /.well-known/no-such-document 404']);
    for (const l of completed(lines)) {
      expect(l.level).toBe(30);
      expect(typeof l.responseTime).toBe('number');
    }
    expect(raw).not.toContain('secret-in-query');
    expect(raw).not.toContain('not-a-real-token');
  }, 90_000);

  it("writes a request's line within a second while the server keeps running, not only when it stops", async () => {
    const port = await freePort();
    const file = join(mkdtempSync(join(tmpdir(), 'lyceum-log-')), 'lyceum.sqlite');
    const server = await spawnServe({ LOG_LEVEL: 'info', ACCESS_LOG: 'true', PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: file });
    try {
      await (await fetch(`http://127.0.0.1:${port}/api/v1/courses?limit=1`)).arrayBuffer();
      const sent = Date.now();
      // One short line is far below the batch size: only the periodic write brings it out.
      while (!server.stdout().includes('"url":"/api/v1/courses?limit=1"') && Date.now() - sent < 1000) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(server.stdout()).toContain('"url":"/api/v1/courses?limit=1"');
    } finally {
      expect(await server.stop()).toBe(0);
    }
  }, 90_000);

  it('ACCESS_LOG=true at debug: the public documents are logged too', async () => {
    const { lines } = await serveAndLog({ LOG_LEVEL: 'debug', ACCESS_LOG: 'true' }, [{ path: '/.well-known/openid-configuration' }, { path: '/auth.md' }]);
    expect(urls(lines)).toEqual(['GET /.well-known/openid-configuration 200', 'GET /auth.md 200']);
  }, 90_000);
});
