import { connect, createServer, type Server, type Socket } from 'node:net';

/** A TCP proxy in front of PostgreSQL that a test can cut (the database becomes unreachable) and restore. */
export interface CuttableProxy {
  port: number;
  /** Ends every connection through it and refuses new ones, as a database that went away. */
  cut(): Promise<void>;
  /** Accepts and forwards connections again, on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function cuttableProxy(host: string, port: number): Promise<CuttableProxy> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(port, host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => {});
      s.on('close', () => {
        sockets.delete(s);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  const listen = (at: number) => new Promise<void>((resolve, reject) => server.once('error', reject).listen(at, '127.0.0.1', () => resolve()));
  const stop = () => {
    for (const s of sockets) s.destroy();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  };
  await listen(0);
  const bound = (server.address() as { port: number }).port;
  return {
    port: bound,
    cut: stop,
    restore: () => listen(bound),
    close: () => (server.listening ? stop() : Promise.resolve()),
  };
}
