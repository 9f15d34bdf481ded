/**
 * The ID token and UserInfo of a real code flow, on a server started inside
 * each test (the routes and signer are wired while the app is built).
 */
import { createHash } from 'node:crypto';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { callUserinfo } from '../helpers/bearer.ts';
import { authorizeFlow, exchangeCode, startFlowServer } from '../helpers/flow.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

describe.each(STORE_KINDS)('ID token and UserInfo of a code flow (%s)', (kind) => {
  it('signs a typ JWT ID token whose at_hash is the left half of the access token’s SHA-256 and whose times are in seconds', async () => {
    const server = await startFlowServer(kind);
    try {
      const flow = await authorizeFlow(server, { scope: 'openid profile' });
      const release = server.freezeClock();
      const now = server.deps.now();
      const res = await exchangeCode(server, flow);
      release();
      expect(res.status, res.text).toBe(200);
      const accessToken = res.json.access_token as string;
      const idToken = res.json.id_token as string;
      const jwks = createRemoteJWKSet(new URL(`${server.issuer}/.well-known/jwks.json`));
      const { payload, protectedHeader } = await jwtVerify(idToken, jwks, { issuer: server.issuer, audience: flow.clientId });
      // OIDC Core §2: the ID token is a JWT; its header says so.
      expect(protectedHeader).toEqual({ alg: 'RS256', kid: decodeProtectedHeader(idToken).kid, typ: 'JWT' });
      expect(typeof protectedHeader.kid).toBe('string');
      // OIDC Core §3.1.3.6: "the base64url encoding of the left-most half of the hash of the octets of the ASCII representation of the access_token".
      const digest = createHash('sha256').update(accessToken, 'ascii').digest();
      const iat = Math.floor(now / 1000);
      expect(payload).toEqual({
        iss: server.issuer,
        sub: server.user.id,
        aud: flow.clientId,
        iat,
        exp: iat + server.deps.config.idTokenTtl,
        auth_time: expect.any(Number),
        at_hash: digest.subarray(0, 16).toString('base64url'),
      });
      expect(payload.at_hash).toHaveLength(22);
      // RFC 7519 §2 NumericDate: seconds, not milliseconds.
      expect(payload.auth_time).toBeLessThanOrEqual(iat);
      expect(payload.auth_time).toBeGreaterThan(iat - 60);
    } finally {
      await server.stop();
    }
  });

  it('answers UserInfo GET and POST with no-store and updated_at in seconds, and refuses a token without openid', async () => {
    const server = await startFlowServer(kind);
    try {
      const flow = await authorizeFlow(server, { scope: 'openid profile email' });
      const res = await exchangeCode(server, flow);
      expect(res.status, res.text).toBe(200);
      const accessToken = res.json.access_token as string;
      const user = (await server.deps.store.users.findById(server.user.id))!;
      const expected = {
        sub: user.id,
        name: user.name,
        preferred_username: user.email.split('@')[0],
        updated_at: Math.floor(user.updatedAt / 1000),
        school_role: user.role,
        email: user.email,
        email_verified: false,
      };
      for (const call of [{ authorization: `Bearer ${accessToken}` }, { authorization: `Bearer ${accessToken}`, form: {} }]) {
        const info = await callUserinfo(server.issuer, call);
        expect(info.status).toBe(200);
        // RFC 6749 §5.1 asks for no-store on responses with sensitive data; UserInfo is one.
        expect(info.headers.get('cache-control')).toBe('no-store');
        expect(info.json).toEqual(expected);
      }

      // OIDC Core §5.3: UserInfo is for tokens of an OpenID request; a token without openid lacks the scope.
      const plain = await exchangeCode(server, await authorizeFlow(server, { scope: 'courses:read' }));
      const refused = await callUserinfo(server.issuer, { authorization: `Bearer ${plain.json.access_token as string}` });
      expect(refused.status).toBe(403);
      expect(refused.json).toEqual({ error: 'insufficient_scope', error_description: 'This operation needs the scope openid' });
      // Without any token: a 401 challenge, never the claims.
      const anonymous = await callUserinfo(server.issuer, {});
      expect(anonymous.status).toBe(401);
      expect(anonymous.json).toEqual({
        error: 'invalid_request',
        error_description: `This operation needs a Bearer access token with openid; see ${server.issuer}/.well-known/oauth-protected-resource`,
      });
    } finally {
      await server.stop();
    }
  });
});
