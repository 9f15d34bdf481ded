/**
 * An error's public description and its logged detail, through the one error
 * handler over real HTTP: the client reads the description, the log gets the
 * detail, and the detail never reaches the response, on an API route (JSON)
 * and on a browser route (the HTML page).
 */
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorSender, registerErrorHandling } from '../../src/http/errors/error-handler.ts';
import { OAuthError } from '../../src/oauth/errors.ts';
import { PlatformError } from '../../src/platform/errors.ts';
import { httpErrorPage } from '../../src/web/pages/error.ts';

interface Line {
  level: number;
  msg: string;
  error?: string;
  detail?: string;
  err?: { message: string };
}

const API_DETAIL = 'unique index records_courses_slug on a 14-character value';
const PAGE_DETAIL = 'client_id of 240 characters, over the 200 allowed';
const CAUSE = 'connect ECONNREFUSED db-internal-7:5432';

describe('an error’s detail goes to the log, never to the client', () => {
  let app: FastifyInstance;
  let base: string;
  const lines: Line[] = [];

  beforeAll(async () => {
    const stream = new Writable({
      write(chunk, _encoding, callback) {
        lines.push(JSON.parse(String(chunk)) as Line);
        callback();
      },
    });
    app = Fastify({ logger: { level: 'info', stream } });
    registerErrorHandling(app, errorSender(httpErrorPage));
    app.get('/api/conflict', async () => {
      throw new PlatformError('conflict', 'Another course already has this slug').withDetail(API_DETAIL);
    });
    app.get('/page', { config: { html: true } }, async () => {
      throw new OAuthError('invalid_request', 'Choose an app to disconnect.').withDetail(PAGE_DETAIL);
    });
    app.post('/api/echo', async (request) => request.body);
    app.get('/api/failure', async () => {
      throw new Error(CAUSE);
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await app?.close();
  });

  const logged = (text: string) => lines.filter((l) => JSON.stringify(l).includes(text));

  it('on an API route: the JSON body has the description only; the log has the detail', async () => {
    const res = await fetch(`${base}/api/conflict`);
    const text = await res.text();
    expect(res.status).toBe(409);
    expect(JSON.parse(text)).toEqual({ error: 'conflict', error_description: 'Another course already has this slug' });
    expect(text).not.toContain('records_courses_slug');
    expect(logged(API_DETAIL)).toEqual([expect.objectContaining({ level: 30, msg: 'request refused', error: 'conflict', detail: API_DETAIL })]);
  });

  it('on a browser route: the page has the description only; the log has the detail', async () => {
    const res = await fetch(`${base}/page`);
    const html = await res.text();
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(html).toContain('Choose an app to disconnect.');
    expect(html).not.toContain('240 characters');
    expect(logged(PAGE_DETAIL)).toEqual([expect.objectContaining({ level: 30, msg: 'request refused', error: 'invalid_request', detail: PAGE_DETAIL })]);
  });

  it('a body the framework refuses: a fixed description; the parser’s own message in the log', async () => {
    const res = await fetch(`${base}/api/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":' });
    const body = (await res.json()) as Record<string, string>;
    expect(res.status).toBe(400);
    expect(body).toEqual({ error: 'invalid_request', error_description: 'The body is not valid JSON.' });
    expect(logged('FST_ERR_CTP_INVALID_JSON_BODY')).toEqual([expect.objectContaining({ msg: 'request refused', error: 'invalid_request' })]);
  });

  it('an unexpected failure: a generic server_error; the cause in the log', async () => {
    const res = await fetch(`${base}/api/failure`);
    const text = await res.text();
    expect(res.status).toBe(500);
    expect(JSON.parse(text)).toEqual({ error: 'server_error', error_description: 'The server could not complete the request.' });
    expect(text).not.toContain('ECONNREFUSED');
    expect(logged(CAUSE)).toEqual([expect.objectContaining({ level: 50, msg: 'request failed' })]);
  });
});
