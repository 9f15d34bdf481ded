/**
 * Client registration (RFC 7591 §2) field by field, as a client reads the
 * answer: the edges of each limit, the fields echoed only when sent, and the
 * very error description a developer is shown when a field is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectBody, postRaw, type FormResponse } from '../helpers/flow.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const LOOPBACK = 'http://127.0.0.1/cb';

const metadataError = (description: string) => ({ error: 'invalid_client_metadata', error_description: description });

describe.each(STORE_KINDS)('registration metadata rules (%s)', (kind) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(async () => {
    await server?.close();
  });

  const registerWith = (fields: Record<string, unknown>): Promise<FormResponse> =>
    postRaw(`${server.issuer}/api/oauth/register`, JSON.stringify({ redirect_uris: [LOOPBACK], ...fields }), 'application/json');

  /** A 201 whose body carries exactly these metadata fields besides client_id and client_id_issued_at. */
  function expectRegistered(res: FormResponse, metadata: Record<string, unknown>): void {
    expect(res.status, res.text).toBe(201);
    const { client_id: _id, client_id_issued_at: _at, ...rest } = res.json;
    expect(rest).toEqual({
      redirect_uris: [LOOPBACK],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
      ...metadata,
    });
  }

  describe('redirect_uris', () => {
    it('accepts exactly 10 redirect URIs, the most a client may register', async () => {
      const uris = Array.from({ length: 10 }, (_, i) => `http://127.0.0.1/cb${i}`);
      const res = await registerWith({ redirect_uris: uris });
      expect(res.status, res.text).toBe(201);
      expect(res.json.redirect_uris).toEqual(uris);
    });

    it('tells a client that sent an empty list that it must send a non-empty one', async () => {
      expectBody(await registerWith({ redirect_uris: [] }), 400, {
        error: 'invalid_redirect_uri',
        error_description: 'redirect_uris must be a non-empty array of loopback URIs such as http://127.0.0.1:8765/callback.',
      });
    });

    it('lists the reason for each refused URI, separated by "; "', async () => {
      expectBody(await registerWith({ redirect_uris: ['https://app.example.com/cb', 'http://example.com/cb'] }), 400, {
        error: 'invalid_redirect_uri',
        error_description:
          'Open registration accepts only loopback redirect URIs (http://127.0.0.1:<port>/<path>): ' +
          'https://app.example.com/cb is not an http loopback URI; http://example.com/cb is not a loopback address (127.0.0.1, [::1], localhost). ' +
          'Fixed https callbacks need a registered integration arranged with support.',
      });
    });
  });

  describe('strings and URLs', () => {
    it('accepts a client_name of 200 characters, the longest allowed', async () => {
      const name = 'n'.repeat(200);
      expectRegistered(await registerWith({ client_name: name }), { client_name: name });
    });

    it('refuses a client_name of 201 characters', async () => {
      expectBody(await registerWith({ client_name: 'n'.repeat(201) }), 400, metadataError('client_name must be a string of 1 to 200 characters'));
    });

    it('accepts an http client_uri, not only https', async () => {
      expectRegistered(await registerWith({ client_uri: 'http://tools.example/cli' }), { client_uri: 'http://tools.example/cli' });
    });

    it('refuses a client_uri of another scheme, naming http(s)', async () => {
      expectBody(await registerWith({ client_uri: 'ftp://tools.example/cli' }), 400, metadataError('client_uri must be an http(s) URL'));
    });
  });

  describe('enumerated fields', () => {
    it('names the methods it offers when token_endpoint_auth_method is another', async () => {
      expectBody(await registerWith({ token_endpoint_auth_method: 'client_secret_basic' }), 400, metadataError('token_endpoint_auth_method must be one of none, client_secret_post'));
    });

    it('names every unsupported grant type, separated by ", "', async () => {
      expectBody(
        await registerWith({ grant_types: ['authorization_code', 'implicit', 'password'] }),
        400,
        metadataError('grant_types hold grant types this server does not offer: implicit, password'),
      );
    });

    it('refuses grant_types holding a number among the strings as not an array of strings', async () => {
      expectBody(await registerWith({ grant_types: ['authorization_code', 7] }), 400, metadataError('grant_types must be an array of strings'));
    });

    it('refuses grant_types sent as a single string as not an array of strings', async () => {
      expectBody(await registerWith({ grant_types: 'authorization_code' }), 400, metadataError('grant_types must be an array of strings'));
    });

    it('accepts application_type web and echoes it', async () => {
      expectRegistered(await registerWith({ application_type: 'web' }), { application_type: 'web' });
    });

    it('names native and web when application_type is another', async () => {
      expectBody(await registerWith({ application_type: 'desktop' }), 400, metadataError('application_type must be native or web'));
    });
  });

  describe('id_token_signed_response_alg', () => {
    it('accepts RS256 and ES256 and echoes the one chosen', async () => {
      expectRegistered(await registerWith({ id_token_signed_response_alg: 'RS256' }), { id_token_signed_response_alg: 'RS256' });
      expectRegistered(await registerWith({ id_token_signed_response_alg: 'ES256' }), { id_token_signed_response_alg: 'ES256' });
    });

    it('treats null as absent: accepted, nothing echoed', async () => {
      expectRegistered(await registerWith({ id_token_signed_response_alg: null }), {});
    });

    it('refuses HS256, naming RS256 and ES256', async () => {
      expectBody(await registerWith({ id_token_signed_response_alg: 'HS256' }), 400, metadataError('id_token_signed_response_alg must be RS256 or ES256'));
    });
  });

  describe('contacts', () => {
    const tooMany = 'contacts must hold at most 10 strings of 1 to 200 characters';

    it('echoes the contacts sent', async () => {
      expectRegistered(await registerWith({ contacts: ['dev@tools.example', 'ops@tools.example'] }), { contacts: ['dev@tools.example', 'ops@tools.example'] });
    });

    it('echoes no contacts when none were sent, or an empty list', async () => {
      expectRegistered(await registerWith({}), {});
      expectRegistered(await registerWith({ contacts: [] }), {});
    });

    it('accepts 10 contacts of 200 characters, the most and the longest allowed', async () => {
      const contacts = Array.from({ length: 10 }, (_, i) => `${i}`.padEnd(200, 'c'));
      expectRegistered(await registerWith({ contacts }), { contacts });
    });

    it('refuses 11 contacts', async () => {
      const contacts = Array.from({ length: 11 }, (_, i) => `dev${i}@tools.example`);
      expectBody(await registerWith({ contacts }), 400, metadataError(tooMany));
    });

    it('refuses an empty contact', async () => {
      expectBody(await registerWith({ contacts: ['dev@tools.example', ''] }), 400, metadataError(tooMany));
    });

    it('refuses a contact of 201 characters', async () => {
      expectBody(await registerWith({ contacts: ['c'.repeat(201)] }), 400, metadataError(tooMany));
    });

    it('refuses a contact that is not a string', async () => {
      expectBody(await registerWith({ contacts: ['dev@tools.example', 123] }), 400, metadataError('contacts must be an array of strings'));
    });
  });
});
