/**
 * Closing the server while a download is still on its way to a slow
 * client: an answer the client goes on reading arrives whole, and neither
 * its kept-alive connection (Fastify keeps one 72 s) nor a client that
 * stops reading holds the close past SHUTDOWN_GRACE_MS.
 */
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { obtainTokens, startFlowServer, type FlowServer } from '../helpers/flow.ts';

/** Larger than what the loopback's socket buffers hold for a client that does not read. */
const FILE_BYTES = 9 * 1024 * 1024;
const GRACE_MS = 1500;

async function uploadLargeFile(server: FlowServer): Promise<{ path: string; bearer: string }> {
  const bearer = `Bearer ${(await obtainTokens(server, { scope: 'storage:write' })).tokens.access_token}`;
  const form = new FormData();
  form.append('file', new Blob(['x'.repeat(FILE_BYTES)], { type: 'text/plain' }), 'large.txt');
  const res = await fetch(`${server.issuer}/api/v1/storage`, { method: 'POST', headers: { authorization: bearer }, body: form });
  const body = (await res.json()) as { id: string };
  expect(res.status, JSON.stringify(body)).toBe(201);
  return { path: `/api/v1/storage/${body.id}/content`, bearer };
}

/** A keep-alive client that sends one request and reads nothing until resume() is called. */
async function pausedDownload(server: FlowServer, path: string, bearer: string) {
  const socket = net.connect(Number(new URL(server.issuer).port), '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.pause();
  let received = 0;
  let head = '';
  socket.on('data', (chunk: Buffer) => {
    if (received === 0) head = chunk.toString('latin1').split('\r\n\r\n')[0]!;
    received += chunk.length;
  });
  const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${bearer}\r\n\r\n`);
  // The server has begun the answer: its headers and the first megabytes are in the socket buffers.
  await new Promise((resolve) => setTimeout(resolve, 300));
  return { socket, ended, received: () => received, head: () => head, resume: () => socket.resume() };
}

describe('closing during a download', () => {
  let server: FlowServer | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  it('lets an answer in flight arrive whole, and closes its kept-alive connection once SHUTDOWN_GRACE_MS has passed', async () => {
    server = await startFlowServer('sqlite', { SHUTDOWN_GRACE_MS: String(GRACE_MS) });
    const { path, bearer } = await uploadLargeFile(server);
    const download = await pausedDownload(server, path, bearer);
    const started = performance.now();
    const closed = server.close().then(() => performance.now() - started);
    download.resume();
    const took = await closed;
    await download.ended;
    expect(download.head()).toMatch(/^HTTP\/1\.1 200 /);
    expect(download.received()).toBeGreaterThan(FILE_BYTES);
    // The client kept its connection open after the answer: only the grace period ended it.
    expect(took).toBeGreaterThanOrEqual(GRACE_MS - 50);
    expect(took).toBeLessThan(GRACE_MS + 10_000);
  }, 90_000);

  it('closes a connection whose client stops reading once SHUTDOWN_GRACE_MS has passed', async () => {
    server = await startFlowServer('sqlite', { SHUTDOWN_GRACE_MS: String(GRACE_MS) });
    const { path, bearer } = await uploadLargeFile(server);
    const download = await pausedDownload(server, path, bearer);
    const started = performance.now();
    await server.close();
    const took = performance.now() - started;
    // What reached the client's buffers before the cut is read; the rest never comes.
    download.resume();
    await download.ended;
    expect(took).toBeGreaterThanOrEqual(GRACE_MS - 50);
    expect(took).toBeLessThan(GRACE_MS + 10_000);
    expect(download.received()).toBeLessThan(FILE_BYTES);
  }, 90_000);
});
