import Fastify, { type FastifyInstance } from 'fastify';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setRequestValidation } from '../../src/http/requests/validators.ts';

/**
 * The request validators (src/http/requests/validators.ts): parameters coerced
 * where their schemas say so, JSON bodies taken as sent, and the first
 * problems named in words a client can act on.
 */
describe('request validators', () => {
  let app: FastifyInstance;

  beforeAll(async () => {
    app = Fastify();
    setRequestValidation(app);
    app.post(
      '/items/:id',
      {
        schema: {
          params: z.object({ id: z.coerce.number().int() }),
          querystring: z.object({ limit: z.coerce.number().int().default(10), tags: z.string().optional() }),
          body: z.strictObject({ name: z.string().min(1), count: z.int().optional(), email: z.email().optional() }),
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
    expect(res.json()).toEqual({ params: { id: 7 }, query: { limit: 10, tags: 'a' }, body: { name: 'x' } });
  });

  it('names the part and the field of the problem, and the fields a body takes', async () => {
    const missing = await post('/items/1', {});
    expect(missing.statusCode).toBe(400);
    expect(missing.json().message).toBe('body.name: required');
    // A JSON body is taken as sent: a number written as a string is refused, not converted.
    const typed = await post('/items/1', { name: 'x', count: '3' });
    expect(typed.json().message).toBe('body.count: Invalid input: expected number, received string');
    const extra = await post('/items/1', { name: 'x', colour: 'red' });
    expect(extra.json().message).toBe('unknown field "colour" in body (takes: name, count, email)');
    const near = await post('/items/1', { name: 'x', emal: 'a@example.com' });
    expect(near.json().message).toBe('unknown field "emal" in body; did you mean "email"? (takes: name, count, email)');
    const format = await post('/items/1', { name: 'x', email: 'not-an-email' });
    expect(format.json().message).toBe('body.email: Invalid email address');
    const params = await post('/items/abc', { name: 'x' });
    expect(params.json().message).toBe('path.id: Invalid input: expected number, received NaN');
    expect((await post('/items/1', { name: 'x' })).statusCode).toBe(200);
  });
});
