/**
 * The floor, in a process of its own (started by bench/bare.ts): a bare
 * Fastify app (no logger, no plugin but @fastify/formbody) serving Lyceum's
 * measured endpoints on the same paths, each doing only its unavoidable work
 * directly with better-sqlite3 on the Lyceum database of the run
 * (bench/floor-routes.ts, bench/floor-flow-routes.ts). What it reaches is
 * what any implementation of that work could reach on this machine.
 *
 * PORT; FLOOR_DATABASE: the SQLite file of the Lyceum server of the run;
 * FLOOR_LYCEUM_URL: that server, whose discovery answer (body and headers)
 * is copied at start and served as is.
 */
import formbody from '@fastify/formbody';
import Fastify from 'fastify';
import { generateKeyPair } from 'jose';
import { securityHeaders, securityPolicy } from '../src/http/security-headers.ts';
import { openFloorDb } from './floor-db.ts';
import { registerFloorFlowRoutes } from './floor-flow-routes.ts';
import { registerFloorRoutes } from './floor-routes.ts';

/** Hop-by-hop and per-response headers Fastify sets itself. */
const PER_RESPONSE = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

const lyceum = process.env.FLOOR_LYCEUM_URL!;
const res = await fetch(`${lyceum}/.well-known/openid-configuration`);
if (res.status !== 200) throw new Error(`${lyceum} answered ${res.status} to the discovery request`);
const discoveryBody = await res.text();
const discoveryHeaders = Object.fromEntries([...res.headers].filter(([name]) => !PER_RESPONSE.has(name)));
const issuer = (JSON.parse(discoveryBody) as { issuer: string }).issuer;

const app = Fastify();
await app.register(formbody);
app.get('/.well-known/openid-configuration', (_request, reply) => {
  reply.headers(discoveryHeaders).send(discoveryBody);
});
const settings = {
  db: openFloorDb(process.env.FLOOR_DATABASE!),
  issuer,
  // Lyceum's policy over plain http (src/app.ts: securityPolicy(secureCookies), false on loopback).
  security: securityHeaders(securityPolicy(false)),
  // Lyceum's defaults (src/config/defaults.ts); the bench leaves them unset.
  accessTtlSeconds: 3600,
  refreshTtlSeconds: 2_592_000,
  refreshGraceSeconds: 10,
};
// A 2048-bit RSA key as Lyceum's key ring makes (a WebCrypto key; jose signs with it the same way).
const { privateKey } = await generateKeyPair('RS256', { modulusLength: 2048 });
const codeGrant = registerFloorFlowRoutes(app, {
  ...settings,
  sessionTtlSeconds: 43_200,
  codeTtlSeconds: 60,
  idTokenTtlSeconds: 3600,
  idTokenKey: { kid: 'floor-rs256', key: privateKey },
});
registerFloorRoutes(app, { ...settings, codeGrant });
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
// A clean exit (the database closed, a --cpu-prof profile written) when the bench stops it.
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
