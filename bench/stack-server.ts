/**
 * Lyceum's HTTP stack without Lyceum, in a process of its own: the plugins
 * and options src/app.ts registers for every request (helmet with the same
 * CSP, the CORS delegator, cookies, form bodies, the JSON serializer, info
 * logging one line per request to stdout) around one route that answers
 * Lyceum's discovery document. Between the bare route and Lyceum's own
 * discovery endpoint, it shows what the stack costs. The options are a copy
 * of src/app.ts's: keep them in step.
 */
import cookie from '@fastify/cookie';
import cors from '@fastify/cors';
import formbody from '@fastify/formbody';
import helmet from '@fastify/helmet';
import Fastify from 'fastify';
import { authorizationServerMetadata } from '../src/discovery/metadata.ts';
import { serializeRequest } from '../src/http/log-redaction.ts';
import { OneLinePerRequest } from '../src/http/request-log.ts';

const issuer = `http://127.0.0.1:${process.env.PORT}`;
const app = Fastify({ logger: { level: 'info', serializers: { req: serializeRequest } }, logController: new OneLinePerRequest(), bodyLimit: 64 * 1024 });
app.setSerializerCompiler(() => (data) => JSON.stringify(data));
await app.register(formbody, { bodyLimit: 64 * 1024 });
await app.register(cookie);
await app.register(helmet, {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: { defaultSrc: ["'none'"], styleSrc: ["'self'"], imgSrc: ["'self'", 'data:'], frameAncestors: ["'none'"], baseUri: ["'none'"] },
  },
  frameguard: { action: 'deny' },
  hsts: false,
  crossOriginResourcePolicy: false,
});
await app.register(cors, {
  delegator: (req, cb) => {
    cb(null, (req.url ?? '').startsWith('/.well-known/')
      ? { origin: '*', methods: ['GET', 'POST', 'OPTIONS'], allowedHeaders: ['Authorization', 'Content-Type', 'MCP-Protocol-Version'], exposedHeaders: ['WWW-Authenticate'], maxAge: 86_400 }
      : { origin: false });
  },
});
app.get('/.well-known/openid-configuration', async (_req, reply) => {
  reply.header('cache-control', 'public, max-age=300');
  return authorizationServerMetadata(issuer);
});
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
