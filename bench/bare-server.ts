/**
 * The limit the bench compares Lyceum with, in a process of its own (PORT is
 * given by the bench): a bare Fastify app, defaults otherwise (no logger),
 * with a GET route, a form POST route, and a GET of Lyceum's discovery
 * document (same body, none of Lyceum's plugins) to separate the cost of the
 * body from the rest.
 */
import formbody from '@fastify/formbody';
import Fastify from 'fastify';
import { authorizationServerMetadata } from '../src/discovery/metadata.ts';

const issuer = `http://127.0.0.1:${process.env.PORT}`;
const app = Fastify();
await app.register(formbody);
app.get('/', async () => ({ hello: 'world' }));
app.post('/form', async (request) => ({ fields: Object.keys(request.body as Record<string, string>).length }));
app.get('/doc', async () => authorizationServerMetadata(issuer));
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
