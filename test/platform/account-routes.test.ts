/**
 * GET and PATCH /api/v1/account on a server started inside the test (the
 * routes and their handlers are bound while it is built): what
 * /openapi.json says about them, written by hand, and what they answer.
 */
import { describe, expect, it } from 'vitest';
import { readJson } from '../helpers/bearer.ts';
import { startFlowServer } from '../helpers/flow.ts';
import { api, tokenSource } from '../helpers/records.ts';

type Operation = {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: unknown;
  responses: Record<string, { description?: string; content?: Record<string, { schema: Record<string, unknown> }> }>;
};

describe('the account routes', () => {
  it('are described in /openapi.json and read and change the token user’s account', async () => {
    const server = await startFlowServer('sqlite');
    try {
      const doc = await readJson(await fetch(`${server.issuer}/openapi.json`));
      expect(doc.status, doc.text).toBe(200);
      const account = (doc.json.paths as Record<string, Record<string, Operation>>)['/api/v1/account']!;
      expect(Object.keys(account).sort()).toEqual(['get', 'patch']);
      expect(account.get).toMatchObject({
        operationId: 'getAccount',
        summary: 'Read your account',
        description: "The token's user, and their own student record with enrollments, subscriptions and orders.",
        tags: ['account'],
        security: [{ lyceum_oauth: ['account:read'] }],
      });
      expect(Object.keys(account.get!.responses).sort()).toEqual(['200', '400', '401', '403', '404']);
      expect(account.get!.responses['404']).toMatchObject({ description: 'Error (404)' });
      expect(account.get!.responses['200']!.content!['application/json']!.schema).toMatchObject({
        type: 'object',
        properties: { email: { type: 'string' }, role: { type: 'string', enum: ['owner', 'admin', 'lecturer', 'student'] } },
      });
      expect(account.patch).toMatchObject({
        operationId: 'updateAccount',
        summary: 'Change your name or password',
        description:
          'A password change signs the user out everywhere: every browser session ends and every token of the user is revoked, this one included (sessions_ended, tokens_revoked); sign in again afterwards.',
        tags: ['account'],
        security: [{ lyceum_oauth: ['account:write'] }],
      });
      expect(Object.keys(account.patch!.responses).sort()).toEqual(['200', '400', '401', '403', '404', '429']);
      expect(account.patch!.responses['429']).toMatchObject({ description: 'Error (429)' });
      expect(account.patch!.responses['200']!.content!['application/json']!.schema).toMatchObject({
        type: 'object',
        properties: { sessions_ended: { type: 'integer' }, tokens_revoked: { type: 'integer' } },
      });

      const token = tokenSource(server);
      const reader = await token('account:read');
      const writer = await token('account:write');
      const read = await api(server.issuer, 'GET', '/account', { token: reader });
      expect(read.status, read.text).toBe(200);
      expect(read.json).toMatchObject({ id: server.user.id, email: server.user.email, role: 'owner', student: null });
      // Each route asks for its own scope.
      expect((await api(server.issuer, 'GET', '/account', { token: writer })).status).toBe(403);
      expect((await api(server.issuer, 'PATCH', '/account', { token: reader, body: { name: 'Renamed' } })).status).toBe(403);

      const changed = await api(server.issuer, 'PATCH', '/account', { token: writer, body: { name: 'Renamed Owner' } });
      expect(changed.status, changed.text).toBe(200);
      expect(changed.json).toMatchObject({ id: server.user.id, email: server.user.email, name: 'Renamed Owner' });
      expect((await api(server.issuer, 'GET', '/account', { token: reader })).json).toMatchObject({ name: 'Renamed Owner' });
    } finally {
      await server.stop();
    }
  });
});
