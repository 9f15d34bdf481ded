/**
 * The token endpoint's answers for a client_id that is a metadata document
 * URL, beyond invalid_client: a document Lyceum may not fetch just now is a
 * 429 with Retry-After there too, never passed off as an unknown client.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentFor, startDocumentServer, TEST_CA, type DocumentServer } from '../helpers/document-server.ts';
import { startFlowServer, type FlowServer } from '../helpers/flow.ts';
import { postForm } from '../helpers/oauth.ts';

let docs: DocumentServer;
beforeAll(async () => {
  docs = await startDocumentServer();
});
afterAll(() => docs?.close());

describe('the token endpoint and the fetch rate per host (sqlite)', () => {
  let server: FlowServer;
  beforeAll(async () => {
    server = await startFlowServer('sqlite', { CIMD_ALLOW_HOSTS: 'localhost', CIMD_FETCHES_PER_HOST_PER_MINUTE: '1' }, { extraCa: TEST_CA });
  });
  afterAll(() => server?.stop());

  it('answers too_many_requests (429, Retry-After), not invalid_client, once the host’s fetches are spent', async () => {
    const thaw = server.freezeClock();
    const [first, second] = ['/token-rate/first.json', '/token-rate/second.json'];
    for (const path of [first, second]) docs.json(path, documentFor(docs.url(path)));
    const exchange = (path: string) =>
      postForm(server.tokenEndpoint, {
        grant_type: 'authorization_code',
        code: 'lyc_ac_unknown',
        redirect_uri: 'http://127.0.0.1:53123/callback',
        code_verifier: 'v'.repeat(43),
        client_id: docs.url(path),
      });
    // The first document is fetched and usable: the code is what is wrong.
    const spent = await exchange(first);
    expect({ status: spent.status, error: spent.json.error }).toEqual({ status: 400, error: 'invalid_grant' });
    const limited = await exchange(second);
    expect({ status: limited.status, body: limited.json, retryAfter: limited.headers.get('retry-after') }).toEqual({
      status: 429,
      body: { error: 'too_many_requests', error_description: 'Lyceum fetched client metadata documents from localhost too often just now; try again shortly.' },
      retryAfter: '60',
    });
    expect(docs.hits(second)).toBe(0);
    thaw();
  });
});
