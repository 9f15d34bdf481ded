import { OAuthError } from '../../errors.ts';
import { sha256 } from '../../issued-tokens/secrets.ts';
import { requiredParam } from '../form-params.ts';
import type { GrantHandler } from '../grant-handler.ts';
import { mintPair, tokenResponse, type MintedPair } from '../issue-tokens.ts';
import { resolveTokenResource } from '../resource-param.ts';
import type { DeviceAuthorization, PollOutcome } from '../../../store/types.ts';
import { AUTHORIZATION_SERVER as AS, DEVICE_CODE_GRANT } from '../../../util/authorization-server.ts';

const invalidGrant = (d: string) => new OAuthError('invalid_grant', d);
/**
 * A poll this much sooner than the interval still counts as on time: timers
 * and networks are not exact, and a client that waited its interval must
 * never be told to slow down.
 */
const POLL_TOLERANCE_MS = 1000;

/**
 * grant_type=urn:ietf:params:oauth:grant-type:device_code (RFC 8628 §3.4).
 * The authorization is read and changed in one transaction (the store's
 * poll), so two polls racing on any instances get one set of tokens, and
 * a poll always sees the interval the one before it set.
 */
export const deviceCodeGrant = {
  grantType: DEVICE_CODE_GRANT,
  async handle({ body, client, deps }) {
    const deviceCode = requiredParam(body, 'device_code', 200);
    const now = deps.now();
    let failure: OAuthError | undefined;
    let pair: MintedPair | undefined;
    const step = (a: DeviceAuthorization): PollOutcome => {
      try {
        // RFC 6749 §5.2 invalid_grant: the grant "was issued to another client".
        if (a.clientId !== client.id) throw invalidGrant('The device code was issued to another client');
        if (a.status === 'redeemed') throw invalidGrant('The device code was already exchanged for tokens');
        // RFC 8628 §3.5 expired_token: "The "device_code" has expired, and the device authorization session has concluded."
        if (now >= a.expiresAt) throw new OAuthError('expired_token', 'The device code has expired; start a new device authorization');
        // RFC 8628 §3.5 access_denied: "The authorization request was denied."
        if (a.status === 'denied') throw new OAuthError('access_denied', 'The person denied the request', 400);
        if (a.status === 'pending') {
          // RFC 8628 §3.5 slow_down: "the interval MUST be increased by 5 seconds for this and all subsequent requests."
          const early = a.lastPolledAt !== null && now - a.lastPolledAt < a.interval * 1000 - POLL_TOLERANCE_MS;
          const interval = early ? a.interval + AS.deviceFlow.slowDownStep : a.interval;
          failure = early
            ? new OAuthError('slow_down', `Polled too soon; wait ${interval} seconds between requests from now on`)
            : new OAuthError('authorization_pending', 'The person has not approved the request yet');
          return { kind: 'wait', interval };
        }
        const resource = resolveTokenResource(body, a.resource, deps);
        pair = mintPair({ client, userId: a.userId!, scope: a.scope, resource, familyId: a.familyId, authTime: a.authTime! }, deps);
        return { kind: 'redeem', tokens: pair.rows };
      } catch (err) {
        if (!(err instanceof OAuthError)) throw err;
        failure = err;
        return { kind: 'none' };
      }
    };
    const seen = await deps.store.deviceAuthorizations.poll(sha256(deviceCode), now, step);
    if (!seen) throw invalidGrant('The device code is invalid');
    if (failure) throw failure;
    // A redeemed authorization ran step, which sets failure or pair.
    const minted = pair!;
    const response = tokenResponse(minted, seen.scope, deps.config.accessTokenTtl);
    if (deps.idTokens && seen.scope.split(' ').includes('openid')) {
      response.id_token = await deps.idTokens.sign({
        clientId: client.id,
        userId: seen.userId!,
        nonce: null,
        authTime: seen.authTime!,
        accessToken: minted.accessToken,
        scope: seen.scope,
        alg: client.metadata.id_token_signed_response_alg ?? AS.signingAlgs[0],
      });
    }
    return response;
  },
} satisfies GrantHandler;
