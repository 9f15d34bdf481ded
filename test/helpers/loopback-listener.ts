/**
 * A native app's side of the authorization flow: a one-shot HTTP listener on
 * 127.0.0.1, any free port (RFC 8252 §7.3), that records what reaches /callback.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const CALLBACK_PAGE = '<!doctype html><html lang="en"><title>Signed in</title><h1>You can close this window</h1></html>';

export interface Callback {
  method: string;
  url: URL;
}

export interface LoopbackListener {
  port: number;
  redirectUri: string;
  /** Every request that reached /callback, in order. */
  all: Callback[];
  /** Resolves with the next request to /callback (or one already received). */
  nextCallback(timeoutMs?: number): Promise<Callback>;
  close(): Promise<void>;
}

export async function startListener(): Promise<LoopbackListener> {
  const received: Callback[] = [];
  const all: Callback[] = [];
  const waiting: ((c: Callback) => void)[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const callback = { method: req.method ?? '', url };
    all.push(callback);
    const waiter = waiting.shift();
    if (waiter) waiter(callback);
    else received.push(callback);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(CALLBACK_PAGE);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    all,
    redirectUri: `http://127.0.0.1:${port}/callback`,
    nextCallback(timeoutMs = 10_000) {
      const ready = received.shift();
      if (ready) return Promise.resolve(ready);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no request to /callback within ${timeoutMs} ms`)), timeoutMs);
        waiting.push((c) => {
          clearTimeout(timer);
          resolve(c);
        });
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
