/**
 * A webhook receiver as an integrator would run it: an HTTP server on
 * 127.0.0.1 that checks each request's signature with the `standardwebhooks`
 * package (its own implementation, not the server's code path) and records
 * what arrived. `answer` decides the status it replies with.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { freePort } from '../../scripts/free-port.ts';

export interface Received {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  /** The parsed body, when the signature verified; undefined otherwise. */
  payload?: { type: string; timestamp: string; data: Record<string, unknown> };
  verified: boolean;
  /** 0: not answered. */
  status: number;
}

export interface WebhookReceiver {
  url: string;
  port: number;
  /** The subscription's secret, to verify with; set once the subscription is made. */
  secret: string | undefined;
  received: Received[];
  /** The status of the next answer, from what arrived (default 204); null: never answer (the request hangs). */
  answer: (r: Omit<Received, 'status'>, n: number) => number | null;
  /** Resolves once `count` verified requests match `filter`, or rejects after timeoutMs. */
  waitFor(count: number, filter?: (r: Received) => boolean, timeoutMs?: number): Promise<Received[]>;
  /** Stops listening (receivers "down"); listen() starts again on the same port. */
  close(): Promise<void>;
  listen(): Promise<void>;
}

export async function startReceiver(options: { port?: number; listening?: boolean } = {}): Promise<WebhookReceiver> {
  const port = options.port ?? (await freePort());
  let server: Server | undefined;
  const receiver: WebhookReceiver = {
    url: `http://127.0.0.1:${port}/hooks`,
    port,
    secret: undefined,
    received: [],
    answer: () => 204,
    async waitFor(count, filter = () => true, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const matching = receiver.received.filter((r) => r.verified && filter(r));
        if (matching.length >= count) return matching;
        if (Date.now() > deadline)
          throw new Error(
            `waited for ${count} webhooks, got ${matching.length} of ${receiver.received.length}: ${JSON.stringify(receiver.received.map((r) => [r.payload?.type, r.status, r.verified]))}`,
          );
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    async listen() {
      server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          const headers = {
            'webhook-id': String(req.headers['webhook-id'] ?? ''),
            'webhook-timestamp': String(req.headers['webhook-timestamp'] ?? ''),
            'webhook-signature': String(req.headers['webhook-signature'] ?? ''),
          };
          let payload: Received['payload'];
          try {
            payload = new Webhook(receiver.secret ?? 'whsec_AAAA').verify(body, headers) as Received['payload'];
          } catch {
            payload = undefined;
          }
          const entry = {
            id: headers['webhook-id'],
            timestamp: headers['webhook-timestamp'],
            signature: headers['webhook-signature'],
            body,
            verified: payload !== undefined,
            ...(payload ? { payload } : {}),
          };
          const status = payload ? receiver.answer(entry, receiver.received.length) : 401;
          receiver.received.push({ ...entry, status: status ?? 0 });
          if (status !== null) res.writeHead(status).end();
        });
      });
      await new Promise<void>((resolve, reject) => {
        server!.once('error', reject);
        server!.listen(port, '127.0.0.1', () => resolve());
      });
      if ((server.address() as AddressInfo).port !== port) throw new Error('receiver port changed');
    },
    async close() {
      const s = server;
      server = undefined;
      if (!s) return;
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    },
  };
  if (options.listening !== false) await receiver.listen();
  return receiver;
}
