/**
 * The token and revocation endpoints at their edges: which Authorization
 * headers count as HTTP Basic, how a confidential client's secret is compared,
 * parameters that are too long or repeated, a replay whose successor has
 * already been used, and the no-store header of a revocation answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  authorizeFlow,
  codeExchangeFields,
  exchangeCode,
  expectBody,
  obtainTokens,
  postRaw,
  refreshRequest,
  refreshTokens,
  revokeRequest,
  startFlowServer,
  type FlowServer,
} from '../helpers/flow.ts';
import { STORE_KINDS } from '../helpers/stores.ts';


describe.each(STORE_KINDS)('the token endpoint at its edges (%s)', (kind) => {
  let server: FlowServer;
  beforeAll(async () => {
    server = await startFlowServer(kind);
  });
  afterAll(() => server?.stop());

  it('ignores an Authorization header of another scheme than Basic and authenticates the client from the body', async () => {
    const flow = await authorizeFlow(server);
    const res = await exchangeCode(server, flow, {}, { authorization: 'Bearer not-a-client-credential' });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ token_type: 'Bearer', scope: 'courses:read students:read' });
  });

  it('refuses HTTP Basic whatever the case of the scheme name, with a Basic challenge (RFC 6749 §5.2)', async () => {
    const flow = await authorizeFlow(server);
    const basic = `BASIC ${Buffer.from(`${flow.clientId}:x`).toString('base64')}`;
    const res = await exchangeCode(server, flow, {}, { authorization: basic });
    expectBody(res, 401, {
      error: 'invalid_client',
      error_description: 'HTTP Basic client authentication is not supported; send client_id (and client_secret) in the body',
    });
    expect(res.headers.get('www-authenticate')).toBe('Basic realm="lyceum", charset="UTF-8"');
  });

  it('refuses a confidential client whose client_secret is wrong but of the right length (RFC 6749 §5.2 invalid_client)', async () => {
    const flow = await authorizeFlow(server, { confidential: true });
    const secret = flow.clientSecret!;
    const wrong = `${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
    expectBody(await exchangeCode(server, flow, { client_secret: wrong }), 401, {
      error: 'invalid_client',
      error_description: 'Client authentication failed',
    });
    // The code was not touched: the right secret still redeems it.
    expect((await exchangeCode(server, flow)).status).toBe(200);
  });

  it('refuses a client_id longer than 200 characters as invalid_request', async () => {
    const flow = await authorizeFlow(server);
    expectBody(await exchangeCode(server, flow, { client_id: 'c'.repeat(201) }), 400, {
      error: 'invalid_request',
      error_description: 'client_id is too long',
    });
  });

  it('refuses two resource parameters at the token step as invalid_target (RFC 8707 §2.2, one resource per token)', async () => {
    const flow = await authorizeFlow(server);
    const body = new URLSearchParams(codeExchangeFields(flow));
    body.append('resource', server.issuer);
    body.append('resource', `${server.issuer}/mcp`);
    expectBody(await postRaw(server.tokenEndpoint, body.toString(), 'application/x-www-form-urlencoded'), 400, {
      error: 'invalid_target',
      error_description: 'Send one resource per request',
    });
  });

  it('ends the family when a token is replayed inside the grace window after its successor was itself refreshed', async () => {
    const { flow, tokens } = await obtainTokens(server);
    const restart = server.freezeClock();
    try {
      const first = await refreshTokens(server, flow, tokens.refresh_token!);
      const second = await refreshTokens(server, flow, first.refresh_token!);
      // The successor the replay would get back is no longer current: returning it would revive a used token.
      expectBody(await refreshRequest(server, flow, tokens.refresh_token!), 400, {
        error: 'invalid_grant',
        error_description: 'The refresh token was already used',
      });
      expectBody(await refreshRequest(server, flow, second.refresh_token!), 400, {
        error: 'invalid_grant',
        error_description: 'The refresh token is invalid or was revoked',
      });
    } finally {
      restart();
    }
  });

  it('answers a revocation with Cache-Control: no-store', async () => {
    const { flow, tokens } = await obtainTokens(server);
    const res = await revokeRequest(server, flow, tokens.access_token);
    expect({ status: res.status, text: res.text, cacheControl: res.headers.get('cache-control') }).toEqual({
      status: 200,
      text: '',
      cacheControl: 'no-store',
    });
  });
});
