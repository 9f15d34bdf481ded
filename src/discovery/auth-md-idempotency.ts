import type { Config } from '../config/index.ts';
import { IDEMPOTENCY_KEY_MAX_LENGTH, IDEMPOTENCY_WAIT_MS, REPLAYED_HEADER } from '../platform/idempotency.ts';
import { API_PREFIX } from '../platform/routes/paths.ts';
import { bullets, code, duration, fence } from './markdown.ts';

/** The /auth.md section on retrying a POST under /api/v1 safely (platform/idempotency.ts does what it says). */
export function idempotencySection(config: Pick<Config, 'issuer' | 'idempotencyKeyRetention'>): string {
  // An HTTP request rather than a shell block: the walkthrough's shell blocks are meant to run in order.
  const example = fence(
    'http',
    [
      `POST ${API_PREFIX}/courses HTTP/1.1`,
      `Host: ${new URL(config.issuer).host}`,
      'Authorization: Bearer <access token>',
      'Content-Type: application/json',
      'Idempotency-Key: 5b0e6f9e-0c8a-4d1e-9f43-2a7d1c3e8b21',
      '',
      '{"title": "Practical Rust"}',
    ].join('\n'),
  );
  return [
    `Every ${code(`POST ${API_PREFIX}/…`)} takes an optional \`Idempotency-Key\` header (IETF draft "The Idempotency-Key HTTP Header Field"): send a new unique value, such as a UUID, with each new request, and the same value when you retry it after a timeout or a dropped connection.`,
    bullets([
      `The key is 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} printable ASCII characters, bare or as a quoted string; it belongs to your user and client, and to the method and path.`,
      `A retry with the same key and the same JSON body (key order does not matter) gets the first answer again, status, body and \`Location\` included, with \`${REPLAYED_HEADER}: true\`, for ${duration(config.idempotencyKeyRetention)} (IDEMPOTENCY_KEY_RETENTION_SECONDS); nothing is done twice.`,
      'The same key with another body is 422 `idempotency_key_reused`.',
      `A retry sent while the first request still runs waits for its answer (${IDEMPOTENCY_WAIT_MS / 1000} s at most, then 409 \`idempotency_key_in_use\` with \`Retry-After\`).`,
      'A 429 or a 5xx is not kept: a retry with the same key runs the request again. Any other answer, a refusal included, is kept.',
      'An upload is recognised by its length: use one key per file.',
    ]),
    example,
  ].join('\n\n');
}
