import { OAuthError } from '../../errors.ts';
import { isWellFormedVerifier, verifyS256 } from '../../pkce.ts';
import { sha256 } from '../../issued-tokens/secrets.ts';
import { requiredParam } from '../form-params.ts';
import type { GrantHandler } from '../grant-handler.ts';
import { mintPair, tokenResponse, type MintedPair } from '../issue-tokens.ts';
import { resolveTokenResource } from '../resource-param.ts';
import type { AuthorizationCode } from '../../../store/types.ts';
import { AUTHORIZATION_SERVER } from '../../../util/authorization-server.ts';

const invalidGrant = (d: string) => new OAuthError('invalid_grant', d);

/** grant_type=authorization_code (RFC 6749 §4.1.3, RFC 7636 §4.5). */
export const authorizationCodeGrant = {
  grantType: 'authorization_code',
  async handle({ request, body, client, deps }) {
    const code = requiredParam(body, 'code', 200);
    const redirectUri = requiredParam(body, 'redirect_uri', 2000);
    const verifier = requiredParam(body, 'code_verifier', 200);
    // RFC 7636 §4.1: code_verifier = high-entropy cryptographic random STRING ... minimum length of 43 characters and a maximum length of 128.
    if (!isWellFormedVerifier(verifier)) throw new OAuthError('invalid_request', 'code_verifier must be 43 to 128 unreserved characters');

    const now = deps.now();
    let failure: OAuthError | undefined;
    let pair: MintedPair | undefined;
    /** Runs inside the consuming transaction: the code is burnt whatever the outcome. */
    const checkAndMint = (c: AuthorizationCode) => {
      try {
        // RFC 6749 §4.1.3: "ensure that the authorization code was issued to the authenticated confidential client, or ... to the public client"
        if (c.clientId !== client.id) throw invalidGrant('The authorization code was issued to another client');
        if (now >= c.expiresAt) throw invalidGrant('The authorization code has expired');
        // RFC 6749 §4.1.3: the redirect_uri must be "identical" to the one in the authorization request.
        if (redirectUri !== c.redirectUri) throw invalidGrant('redirect_uri does not match the authorization request');
        // RFC 7636 §4.6: "If the values are not equal, an error response indicating "invalid_grant" ... MUST be returned."
        if (!verifyS256(verifier, c.codeChallenge)) throw invalidGrant('code_verifier does not match the code_challenge');
        const resource = resolveTokenResource(body, c.resource, deps);
        pair = mintPair({ client, userId: c.userId, scope: c.scope, resource, familyId: c.familyId, authTime: c.authTime }, deps);
        return pair.rows;
      } catch (err) {
        if (!(err instanceof OAuthError)) throw err;
        failure = err;
        return [];
      }
    };
    const result = await deps.store.codes.consume(sha256(code), now, checkAndMint);
    if (result.status === 'unknown') throw invalidGrant('The authorization code is invalid');
    if (result.status === 'already_consumed') {
      // RFC 6749 §4.1.2: "If an authorization code is used more than once, the authorization server
      // MUST deny the request and SHOULD revoke (when possible) all tokens previously issued based on that authorization code."
      const revoked = await deps.store.tokens.revokeFamily(result.code.familyId, now);
      request.log.warn({ client_id: client.id, revoked }, 'authorization code replayed; its tokens were revoked');
      throw invalidGrant('The authorization code was already used');
    }
    if (failure) throw failure;
    // A consumed code ran checkAndMint, which sets failure or pair.
    const minted = pair!;
    const c = result.code;
    const response = tokenResponse(minted, c.scope, deps.config.accessTokenTtl);
    if (deps.idTokens && c.scope.split(' ').includes('openid')) {
      response.id_token = await deps.idTokens.sign({
        clientId: client.id,
        userId: c.userId,
        nonce: c.nonce,
        authTime: c.authTime,
        accessToken: minted.accessToken,
        scope: c.scope,
        alg: client.metadata.id_token_signed_response_alg ?? AUTHORIZATION_SERVER.signingAlgs[0],
      });
    }
    return response;
  },
} satisfies GrantHandler;
