/**
 * The reference the bench measures Lyceum beside, in a process of its own
 * (PORT is given by the bench): a bare Fastify app with defaults (no logger),
 * a GET route and a form POST route.
 */
import formbody from '@fastify/formbody';
import Fastify from 'fastify';

const app = Fastify();
await app.register(formbody);
app.get('/', async () => ({ hello: 'world' }));
app.post('/form', async (request) => ({ fields: Object.keys(request.body as Record<string, string>).length }));
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
