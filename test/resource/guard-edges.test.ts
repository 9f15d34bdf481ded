/**
 * The bearer guard's refusals, word for word, on a server started inside
 * each test: a token in the query string, and requests needing two scopes.
 */
import { describe, expect, it } from 'vitest';
import { callUserinfo } from '../helpers/bearer.ts';
import { obtainTokens, startFlowServer } from '../helpers/flow.ts';
import { mcpPost, toolCall } from '../helpers/mcp.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

describe.each(STORE_KINDS)('bearer guard edges (%s)', (kind) => {
  it('refuses an access token in the query string with 400 invalid_request (RFC 9700 §2.4: tokens in URIs leak)', async () => {
    const server = await startFlowServer(kind);
    try {
      const res = await callUserinfo(server.issuer, { query: { access_token: 'anything' } });
      expect(res.status).toBe(400);
      expect(res.json).toEqual({
        error: 'invalid_request',
        error_description: 'Send the access token in the Authorization header, not in the query string or body',
      });
    } finally {
      await server.stop();
    }
  });

  it('lets an anonymous caller read a public view, and only a public view', async () => {
    const server = await startFlowServer(kind);
    try {
      const school = await fetch(`${server.issuer}/api/v1/school`);
      expect(school.status).toBe(200);
      const analytics = await fetch(`${server.issuer}/api/v1/analytics`);
      expect(analytics.status).toBe(401);
      expect(await analytics.json()).toEqual({
        error: 'invalid_request',
        error_description: `This operation needs a Bearer access token with analytics:read; see ${server.issuer}/.well-known/oauth-protected-resource`,
      });
    } finally {
      await server.stop();
    }
  });

  it('names every scope a request needs, plural, space-separated (RFC 6750 §3: scope is a space-delimited list)', async () => {
    const server = await startFlowServer(kind);
    try {
      // One call whose tool needs four scopes.
      const call = toolCall('get_school_summary');
      const anonymous = await mcpPost(server.issuer, call);
      const prm = `${server.issuer}/.well-known/oauth-protected-resource/mcp`;
      expect(anonymous.status).toBe(401);
      // A tokenless request gets no challenge, only the body (docs/decisions.md).
      expect(anonymous.headers.get('www-authenticate')).toBeNull();
      expect(anonymous.json).toEqual({
        error: 'invalid_request',
        error_description: `This operation needs a Bearer access token with courses:read students:read orders:read events:read; see ${prm}`,
      });
      const { tokens } = await obtainTokens(server, { scope: 'courses:read' });
      const weak = await mcpPost(server.issuer, call, { authorization: `Bearer ${tokens.access_token}` });
      const description = 'This operation needs the scopes courses:read students:read orders:read events:read';
      expect(weak.status).toBe(403);
      expect(weak.json).toEqual({ error: 'insufficient_scope', error_description: description });
      expect(weak.headers.get('www-authenticate')).toBe(
        `Bearer error="insufficient_scope", scope="courses:read students:read orders:read events:read", error_description="${description}", resource_metadata="${prm}"`,
      );
    } finally {
      await server.stop();
    }
  });
});
