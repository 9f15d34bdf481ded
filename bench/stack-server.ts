/**
 * Lyceum's HTTP stack without Lyceum, in a process of its own: the plugins
 * and hooks src/app.ts registers for every request (the security headers,
 * CORS, cookies, form bodies, the JSON serializer, the logger at info with
 * the access log off, as by default) around one route that answers Lyceum's
 * discovery document. Between the bare route and Lyceum's own discovery endpoint, it
 * shows what the stack costs.
 */
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import Fastify from 'fastify';
import { authorizationServerMetadata } from '../src/discovery/metadata.ts';
import { registerCors } from '../src/http/cors.ts';
import { appLogger } from '../src/http/logger.ts';
import { OneLinePerRequest } from '../src/http/request-log.ts';
import { registerSecurityHeaders, securityPolicy } from '../src/http/security-headers.ts';

const issuer = `http://127.0.0.1:${process.env.PORT}`;
const app = Fastify({ logger: appLogger('info').options, logController: new OneLinePerRequest(false), bodyLimit: 64 * 1024 });
app.setSerializerCompiler(() => (data) => JSON.stringify(data));
await app.register(formbody, { bodyLimit: 64 * 1024 });
await app.register(cookie);
registerSecurityHeaders(app, securityPolicy(false));
await registerCors(app, { exact: [], prefixes: ['/.well-known/'] });
app.get('/.well-known/openid-configuration', async (_req, reply) => {
  reply.header('cache-control', 'public, max-age=300');
  return authorizationServerMetadata(issuer);
});
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
