import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPublicAddress, OutboundError, outboundRequest } from '../../src/util/outbound-request.ts';

/** A local server whose answer each test picks by path. */
let server: http.Server;
let port: number;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/big') return res.end('x'.repeat(5000));
    if (req.url === '/slow') return setTimeout(() => res.end('late'), 2000).unref();
    if (req.url === '/redirect') {
      res.writeHead(302, { location: '/ok' });
      return res.end();
    }
    if (req.url === '/echo') {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => res.end(JSON.stringify({ method: req.method, body, type: req.headers['content-type'] })));
      return;
    }
    res.end('ok');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const reason = (p: Promise<unknown>) =>
  p.then(
    () => 'resolved',
    (e: unknown) => (e instanceof OutboundError ? e.reason : `other: ${String(e)}`),
  );

describe('which addresses are public', () => {
  it.each([
    ['93.184.216.34', true],
    ['2606:4700::1', true],
    ['127.0.0.1', false],
    ['10.0.0.1', false],
    ['172.16.5.4', false],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['224.0.0.1', false],
    ['255.255.255.255', false],
    ['192.0.2.1', false],
    ['::1', false],
    ['::', false],
    ['fe80::1', false],
    ['fc00::1', false],
    ['ff02::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:10.0.0.1', false],
    ['::ffff:93.184.216.34', true],
    ['64:ff9b::a00:1', false],
    ['2002:7f00:1::', false],
    // Outside 2000::/3, the only global unicast block: IPv4-compatible and other reserved forms.
    ['::127.0.0.1', false],
    ['::169.254.169.254', false],
    ['::1:7f00:1', false],
    ['100::1', false],
    ['4000::1', false],
    ['2001:4860:4860::8888', true],
    ['not an address', false],
  ])('%s → %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});

describe('an outbound request', () => {
  const base = { timeoutMs: 1000, maxBytes: 1000 };

  it('refuses plain http unless loopback http is allowed, and then only to loopback', async () => {
    expect(await reason(outboundRequest(`http://127.0.0.1:${port}/`, base))).toBe('invalid_url');
    const res = await outboundRequest(`http://127.0.0.1:${port}/`, { ...base, allowHttp: 'loopback' });
    expect([res.status, res.body.toString(), res.address]).toEqual([200, 'ok', '127.0.0.1']);
    expect(await reason(outboundRequest('http://93.184.216.34:9/', { ...base, allowHttp: 'loopback' }))).toBe('forbidden_address');
  });

  it('refuses https to a loopback or private address, by literal or by name, unless the host is allowed', async () => {
    expect(await reason(outboundRequest(`https://127.0.0.1:${port}/`, base))).toBe('forbidden_address');
    expect(await reason(outboundRequest(`https://[::1]:${port}/`, base))).toBe('forbidden_address');
    expect(await reason(outboundRequest(`https://localhost:${port}/`, base))).toBe('forbidden_address');
    expect(await reason(outboundRequest(`https://10.0.0.1/`, base))).toBe('forbidden_address');
    // Allowed by name, the address check is skipped: the request goes out (and fails the TLS
    // handshake against this plain http server, as a network error).
    expect(await reason(outboundRequest(`https://localhost:${port}/`, { ...base, allowHosts: new Set(['localhost']) }))).toBe('network');
  });

  it('refuses what is not an absolute https URL, or carries credentials', async () => {
    expect(await reason(outboundRequest('/relative', base))).toBe('invalid_url');
    expect(await reason(outboundRequest('ftp://example.com/', base))).toBe('invalid_url');
    expect(await reason(outboundRequest('https://user:pw@example.com/', base))).toBe('invalid_url');
  });

  it('hands back a redirect instead of following it', async () => {
    const res = await outboundRequest(`http://127.0.0.1:${port}/redirect`, { ...base, allowHttp: 'loopback' });
    expect([res.status, res.headers.location]).toEqual([302, '/ok']);
  });

  it('gives up on an answer larger than the limit, and on one slower than the timeout', async () => {
    expect(await reason(outboundRequest(`http://127.0.0.1:${port}/big`, { ...base, allowHttp: 'loopback' }))).toBe('too_large');
    const started = Date.now();
    expect(await reason(outboundRequest(`http://127.0.0.1:${port}/slow`, { ...base, timeoutMs: 200, allowHttp: 'loopback' }))).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('sends the method, headers and body it is given', async () => {
    const res = await outboundRequest(`http://127.0.0.1:${port}/echo`, { ...base, allowHttp: 'loopback', method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    expect(JSON.parse(res.body.toString())).toEqual({ method: 'POST', body: '{"a":1}', type: 'application/json' });
  });

  it('reports a name that does not resolve as a network failure', async () => {
    expect(await reason(outboundRequest('https://no-such-host.invalid/', base))).toBe('network');
  });
});
