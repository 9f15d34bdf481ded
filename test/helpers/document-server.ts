/**
 * A local https server for client metadata documents, with the test-only
 * certificate for localhost and 127.0.0.1 (test/fixtures/tls), issued by a
 * test certificate authority the Lyceum server under test is made to trust.
 * Each test serves its own paths and counts how often each was fetched.
 */
import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { authorizeUrl, pkcePair } from './oauth.ts';

const TLS_DIR = new URL('../fixtures/tls/', import.meta.url);
/** The test certificate authority, PEM. */
export const TEST_CA_FILE = new URL('ca.pem', TLS_DIR).pathname;
export const TEST_CA = readFileSync(TEST_CA_FILE, 'utf8');

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface DocumentServer {
  /** https://localhost:<port> */
  origin: string;
  /** The full URL of a path on it. */
  url(path: string): string;
  /** Answers `path` with `handler`. */
  serve(path: string, handler: Handler): void;
  /** Answers `path` with this JSON (a string is sent as it is), status 200 unless given, and extra headers. */
  json(path: string, body: unknown, headers?: Record<string, string>, status?: number): void;
  /** How many requests reached `path`. */
  hits(path: string): number;
  close(): Promise<void>;
}

export async function startDocumentServer(): Promise<DocumentServer> {
  const handlers = new Map<string, Handler>();
  const counts = new Map<string, number>();
  const server = https.createServer({ cert: readFileSync(new URL('localhost.pem', TLS_DIR)), key: readFileSync(new URL('localhost-key.pem', TLS_DIR)) }, (req, res) => {
    const path = req.url ?? '/';
    counts.set(path, (counts.get(path) ?? 0) + 1);
    const handler = handlers.get(path);
    if (handler) return handler(req, res);
    res.writeHead(404).end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `https://localhost:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    url: (path) => origin + path,
    serve: (path, handler) => void handlers.set(path, handler),
    json(path, body, headers = {}, status = 200) {
      handlers.set(path, (_req, res) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(typeof body === 'string' ? body : JSON.stringify(body));
      });
    },
    hits: (path) => counts.get(path) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A valid metadata document for `url` (fields given replace or add; undefined removes one). */
export function documentFor(url: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  const doc: Record<string, unknown> = {
    client_id: url,
    client_name: 'Claude Code (test)',
    redirect_uris: ['http://localhost/callback', 'http://127.0.0.1/callback'],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    ...fields,
  };
  for (const [k, v] of Object.entries(doc)) if (v === undefined) delete doc[k];
  return doc;
}

/**
 * The authorization request of a public client with PKCE whose client_id is
 * `clientId` (a document URL); fields given replace the defaults, undefined
 * removes one.
 */
export function documentClientRequest(issuer: string, clientId: string, over: Record<string, string | undefined> = {}): string {
  const params: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: 'http://127.0.0.1:53123/callback',
    scope: 'courses:read',
    code_challenge: pkcePair().challenge,
    code_challenge_method: 'S256',
    state: 'st-1',
    ...over,
  };
  return authorizeUrl(issuer, Object.fromEntries(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined)));
}

/** How an error page shows its description and its error code. */
export const errorAlert = (description: string) => `<p class="error" role="alert">${description}</p>`;
export const errorCode = (error: string) => `Error code: <code>${error}</code>.`;
