import { z } from 'zod';
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { stringify as canonicalJson } from 'safe-stable-stringify';
import type { Deps } from '../deps.ts';
import type { IdempotencyRecord } from '../store/types.ts';
import { PlatformError } from './errors.ts';

/** The request header, and the one a replayed answer carries besides the first answer's own. */
export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'Idempotency-Replayed';

/** A key is 1 to 255 printable ASCII characters, sent bare or as a structured-field string ("..."). */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
/** A key: 1 to 255 printable ASCII characters. */
const IDEMPOTENCY_KEY = z
  .string()
  .min(1)
  .max(IDEMPOTENCY_KEY_MAX_LENGTH)
  .regex(/^[\x20-\x7e]+$/);

/**
 * How long a duplicate waits for the first request with its key to finish
 * before it is told to retry (409 with Retry-After). The first request's own
 * database waits are bounded well below it, so a duplicate normally gets the
 * first answer instead.
 */
export const IDEMPOTENCY_WAIT_MS = 5000;
const POLL_MS = 50;
/** A key still running this long after its request started belongs to a request that died with its process; the next claim takes it over. */
const RUNNING_LEASE_MS = 60_000;

/** The headers of the first answer that a replay repeats; the body and status are repeated too. */
const REPLAYED_HEADERS = ['content-type', 'location', 'cache-control', 'pragma'] as const;

/**
 * Answers that are not the final word on the request and so are never kept:
 * a rate limit (429) or a fault of this server (5xx). The key is released and
 * a retry with it runs the request again.
 */
const notFinal = (status: number) => status === 429 || status >= 500;

/** What is kept of an answer, sealed in the store: its replayed headers and body. */
interface KeptAnswer {
  headers: Record<string, string>;
  body: string;
  encoding: 'utf8' | 'base64';
}

interface KeyState {
  hash: string;
  /** true once the answer was stored or the key released (or the request was a replay). */
  settled: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    idempotency?: KeyState;
  }
}

/**
 * The key's value: the draft's structured-field string ("...") or, as most
 * clients send it, the bare text; anything else is 400 invalid_request.
 */
function keyValue(raw: string | string[]): string {
  const one = Array.isArray(raw) ? (raw.length === 1 ? raw[0]! : '') : raw;
  const unquoted = /^"(.*)"$/.test(one) ? one.slice(1, -1) : one;
  if (!IDEMPOTENCY_KEY.safeParse(unquoted).success) {
    throw new PlatformError('invalid_request', `The Idempotency-Key header must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} printable ASCII characters, sent once`);
  }
  return unquoted;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('base64url');

/**
 * The request's fingerprint. A JSON body is read as parsed, with its keys in
 * a fixed order, so a retry serialized another way still matches. A
 * multipart upload is streamed to its handler and never held whole: its
 * fingerprint is its length, so a different file of the same length under
 * the same key is taken for a retry (docs/decisions.md).
 */
function fingerprintOf(request: FastifyRequest): string {
  if (request.isMultipart?.()) return sha256(`multipart/form-data ${request.headers['content-length'] ?? 'chunked'}`);
  return sha256(`json ${canonicalJson(request.body ?? null) ?? 'null'}`);
}

/** Answers are sealed with the key ring's secret sealing (never in clear): one may hold a secret shown once. */
function sealer(deps: Deps) {
  return {
    seal: (answer: KeptAnswer) => deps.keys.sealSecret(JSON.stringify(answer)),
    open: async (sealed: string): Promise<KeptAnswer> => JSON.parse(await deps.keys.unsealSecret(sealed)) as KeptAnswer,
  };
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Stores or releases a key once its answer is known. The work is done by
 * then: a store that fails here must not turn the client's answer into an
 * error. The key stays running until RUNNING_LEASE_MS, then a retry runs
 * again; the log says so.
 */
async function settle(request: FastifyRequest, write: () => Promise<unknown>): Promise<void> {
  try {
    await write();
  } catch (err) {
    request.log.warn({ err: { message: (err as Error).message } }, 'Idempotency-Key answer not kept; a retry within a minute is told to wait');
  }
}

/**
 * Idempotent POSTs, following the IETF draft "The Idempotency-Key HTTP
 * Header Field": every POST of the scope `app` (all of /api/v1) that carries
 * an Idempotency-Key is run once per caller, method, path and key. A retry
 * with the same body gets the first answer again (same status, body and
 * Location, plus `Idempotency-Replayed: true`) for IDEMPOTENCY_KEY_RETENTION_SECONDS;
 * the same key with another body is 422 `idempotency_key_reused` ("If there
 * is an attempt to reuse an idempotency key with a different request
 * payload, the resource server SHOULD reply with a HTTP 422 status code").
 * A duplicate that arrives while the first still runs waits for its answer
 * (IDEMPOTENCY_WAIT_MS at most, then 409 `idempotency_key_in_use`, the
 * draft's "request is outstanding" answer, with Retry-After).
 *
 * The check runs in preHandler, after the bearer guard has named the caller
 * and the body was parsed and validated: a request refused before (401, 403,
 * 400 for its body) claims no key.
 */
export function registerIdempotency(app: FastifyInstance, deps: Deps): void {
  const { seal, open } = sealer(deps);
  const { idempotencyKeys } = deps.store;

  const replay = async (reply: FastifyReply, record: IdempotencyRecord): Promise<FastifyReply> => {
    const answer = await open(record.response!);
    reply.code(record.status!).headers(answer.headers).header(REPLAYED_HEADER, 'true');
    return reply.send(answer.encoding === 'base64' ? Buffer.from(answer.body, 'base64') : answer.body);
  };

  app.addHook('preHandler', async (request, reply) => {
    if (request.method !== 'POST') return;
    const raw = request.headers[IDEMPOTENCY_HEADER];
    if (raw === undefined) return;
    const key = keyValue(raw);
    const caller = request.caller;
    // Every POST under /api/v1 needs a token; without a caller there is no one to scope the key to.
    if (caller?.kind !== 'token') return;
    const hash = sha256(JSON.stringify([caller.userId, caller.clientId, request.method, request.url, key]));
    const fingerprint = fingerprintOf(request);
    const deadline = Date.now() + IDEMPOTENCY_WAIT_MS;
    for (;;) {
      const now = deps.now();
      const claim = await idempotencyKeys.claim({ hash, fingerprint, createdAt: now, expiresAt: now + deps.config.idempotencyKeyRetention * 1000 }, now - RUNNING_LEASE_MS);
      if (claim.claimed) {
        request.idempotency = { hash, settled: false };
        return;
      }
      const existing = claim.existing;
      if (existing.fingerprint !== fingerprint) {
        throw new PlatformError('idempotency_key_reused', 'This Idempotency-Key was already used with a different request body; use a new key for a new request');
      }
      if (existing.status !== null) {
        request.idempotency = { hash, settled: true };
        return replay(reply, existing);
      }
      if (Date.now() >= deadline) {
        const e = new PlatformError('idempotency_key_in_use', 'A request with this Idempotency-Key is still being processed; retry after a moment to get its answer');
        e.headers['retry-after'] = '1';
        throw e;
      }
      await pause(POLL_MS);
      // Then claim again: the first request may have finished, or failed and released the key.
    }
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const state = request.idempotency;
    if (!state || state.settled) return payload;
    state.settled = true;
    const status = reply.statusCode;
    const body =
      typeof payload === 'string'
        ? { body: payload, encoding: 'utf8' as const }
        : Buffer.isBuffer(payload)
          ? { body: payload.toString('base64'), encoding: 'base64' as const }
          : payload == null
            ? { body: '', encoding: 'utf8' as const }
            : undefined;
    // A streamed answer cannot be kept whole; none of /api/v1's POSTs streams one.
    if (notFinal(status) || !body) {
      await settle(request, () => idempotencyKeys.release(state.hash));
      return payload;
    }
    const headers: Record<string, string> = {};
    for (const name of REPLAYED_HEADERS) {
      const value = reply.getHeader(name);
      if (value !== undefined) headers[name] = String(value);
    }
    const sealed = await seal({ headers, ...body });
    await settle(request, () => idempotencyKeys.complete(state.hash, status, sealed));
    return payload;
  });

  // An answer that never went through onSend (the request was dropped, or hijacked) releases its key.
  app.addHook('onResponse', async (request) => {
    const state = request.idempotency;
    if (!state || state.settled) return;
    state.settled = true;
    await settle(request, () => idempotencyKeys.release(state.hash));
  });
}

/** The Idempotency-Key header as /openapi.json documents it on every POST under /api/v1 (discovery/openapi.ts adds it). */
export const IDEMPOTENCY_HEADER_DOC = IDEMPOTENCY_KEY.describe(
  'Optional; a unique value per request, such as a UUID (IETF draft "The Idempotency-Key HTTP Header Field"). A retry with the same key and body gets the first answer again, with `Idempotency-Replayed: true`, for IDEMPOTENCY_KEY_RETENTION_SECONDS (a day at least), and creates nothing more; the same key with another body is 422 `idempotency_key_reused`. Keys are per caller (user and client), method and path.',
);

/** The answers an Idempotency-Key adds to a POST's own. */
export const IDEMPOTENCY_ERRORS = {
  409: `idempotency_key_in_use: the first request with this Idempotency-Key still runs after ${IDEMPOTENCY_WAIT_MS / 1000} s (Retry-After)`,
  422: 'idempotency_key_reused: this Idempotency-Key was used with another body',
} as const;
