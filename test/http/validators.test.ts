import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setStrictBodyValidation } from '../../src/http/requests/validators.ts';

/**
 * The request validators (src/http/requests/validators.ts): parameters coerced, JSON
 * bodies taken as sent, and Ajv's first error reported.
 */
describe('request validators', () => {
  let app: FastifyInstance;

  beforeAll(async () => {
    app = Fastify();
    setStrictBodyValidation(app);
    app.post(
      '/items/:id',
      {
        schema: {
          params: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
          querystring: { type: 'object', properties: { limit: { type: 'integer', default: 10 }, tags: { type: 'array', items: { type: 'string' } } } },
          body: {
            type: 'object',
            properties: { name: { type: 'string', minLength: 1 }, count: { type: 'integer' }, email: { type: 'string', format: 'email' } },
            required: ['name'],
            additionalProperties: false,
          },
        },
      },
      async (request) => ({ params: request.params, query: request.query, body: request.body }),
    );
    await app.ready();
  });
  afterAll(() => app.close());

  const post = (url: string, body: unknown) => app.inject({ method: 'POST', url, payload: body as object });

  it('coerces path and query parameters and applies defaults', async () => {
    const res = await post('/items/7?tags=a', { name: 'x' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ params: { id: 7 }, query: { limit: 10, tags: ['a'] }, body: { name: 'x' } });
  });

  it('reports the first error of the call, with the message Ajv gives', async () => {
    const missing = await post('/items/1', {});
    expect(missing.statusCode).toBe(400);
    expect(missing.json().message).toBe("body must have required property 'name'");
    // The next call's errors replace the previous ones (Fastify reads `errors` after each call).
    const typed = await post('/items/1', { name: 'x', count: '3' });
    expect(typed.json().message).toBe('body/count must be integer');
    const extra = await post('/items/1', { name: 'x', colour: 'red' });
    expect(extra.json().message).toBe('body must NOT have additional properties');
    const format = await post('/items/1', { name: 'x', email: 'not-an-email' });
    expect(format.json().message).toBe('body/email must match format "email"');
    const params = await post('/items/abc', { name: 'x' });
    expect(params.json().message).toBe('params/id must be integer');
    expect((await post('/items/1', { name: 'x' })).statusCode).toBe(200);
  });
});
