/**
 * Each request's logger (src/http/request-logger.ts) through a real Fastify
 * app: no pino child is made for a request that writes nothing, and a
 * request that does write gets the lines its own child would have written
 * (its request id, the route's level, further children).
 */
import { Writable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { lazyRequestLogger } from '../../src/http/request-logger.ts';

interface Line {
  level: number;
  msg: string;
  reqId?: string;
  step?: string;
}

async function appWithLog(): Promise<{ app: FastifyInstance; lines: Line[]; children: () => number }> {
  const lines: Line[] = [];
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(JSON.parse(String(chunk)) as Line);
      callback();
    },
  });
  const app = Fastify({ logger: { level: 'info', stream }, disableRequestLogging: true, childLoggerFactory: lazyRequestLogger });
  app.get('/silent', async () => ({ ok: true }));
  app.get('/says', async (request) => {
    request.log.info({ step: 'one' }, 'first line');
    request.log.debug('below the level');
    request.log.child({ step: 'two' }).warn('from a child');
    return { level: request.log.level };
  });
  app.get('/quiet', { logLevel: 'warn' }, async (request) => {
    request.log.info('dropped at this route');
    request.log.error('kept');
    return { level: request.log.level };
  });
  await app.ready();
  const child = vi.spyOn(app.log, 'child');
  return { app, lines, children: () => child.mock.calls.length };
}

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

describe('the request logger', () => {
  it('makes no pino child for requests that write no line', async () => {
    const made = await appWithLog();
    app = made.app;
    for (let i = 0; i < 5; i++) expect((await app.inject({ url: '/silent' })).statusCode).toBe(200);
    expect(made.children()).toBe(0);
    expect(made.lines).toEqual([]);
  });

  it('writes what the request logs with its request id, once a line is written', async () => {
    const made = await appWithLog();
    app = made.app;
    const res = await app.inject({ url: '/says' });
    expect(res.json()).toEqual({ level: 'info' });
    // The request's own child, then the one the route asked it for.
    expect(made.children()).toBe(2);
    const reqIds = new Set(made.lines.map((l) => l.reqId));
    expect(reqIds.size).toBe(1);
    expect([...reqIds][0]).toMatch(/^req-/);
    expect(made.lines.map((l) => [l.level, l.msg, l.step])).toEqual([
      [30, 'first line', 'one'],
      [40, 'from a child', 'two'],
    ]);
  });

  it("keeps a route's own log level", async () => {
    const made = await appWithLog();
    app = made.app;
    expect((await app.inject({ url: '/quiet' })).json()).toEqual({ level: 'warn' });
    expect(made.lines.map((l) => [l.level, l.msg])).toEqual([[50, 'kept']]);
  });

  it('gives each request its own id', async () => {
    const made = await appWithLog();
    app = made.app;
    await app.inject({ url: '/says' });
    await app.inject({ url: '/says' });
    expect(new Set(made.lines.map((l) => l.reqId)).size).toBe(2);
  });
});
