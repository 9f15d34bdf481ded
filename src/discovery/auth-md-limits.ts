import type { Config } from '../config/index.ts';
import { BODY_LIMIT_BYTES, MCP_BODY_LIMIT_BYTES } from '../http/body-limits.ts';
import { MCP_PATH } from '../mcp/path.ts';
import { MAX_FILE_BYTES } from '../platform/files/file-service.ts';
import { readableBytes } from '../util/readable-bytes.ts';
import { code, duration, table } from './markdown.ts';

type LimitsConfig = Pick<
  Config,
  'rateLimits' | 'passwordFailures' | 'storageQuotaBytes' | 'maxRegisteredClients' | 'unusedClientTtl' | 'registrationBodyLimit' | 'redisUrl'
>;

const perMinute = (max: number, per: string, setting: string) =>
  max > 0 ? `${max} a minute ${per} (${setting})` : `none on this server (${setting}=0)`;

const bytes = (n: number) => `${readableBytes(n)} (${n} bytes)`;

/**
 * Every limit a client may meet, in one table, with what it answers past it.
 * Each value is read from the configuration or the constant the code
 * enforces, so the table is what this server does.
 */
export function limitsSection(config: LimitsConfig): string {
  const r = config.rateLimits;
  const p = config.passwordFailures;
  const rows: string[][] = [
    ['Registrations', perMinute(r.registerPerMinute, 'per client address', 'RATE_LIMIT_REGISTER_PER_MINUTE'), '429 `too_many_requests`, `Retry-After`'],
    ['Registered clients', `${config.maxRegisteredClients} at once (MAX_REGISTERED_CLIENTS)`, '429 `too_many_requests`, `Retry-After`'],
    ['A client that never obtained a token', `deleted ${duration(config.unusedClientTtl)} after registering (UNUSED_CLIENT_TTL_SECONDS)`, 'its client_id becomes `invalid_client`'],
    ['Sign-in form posts', perMinute(r.signInPerMinute, 'per client address', 'RATE_LIMIT_SIGN_IN_PER_MINUTE'), '429 page'],
    [
      'Password checks of one account (sign-in and `current_password`), from any address',
      `${p.free} wrong in a row, then a wait of ${duration(p.firstDelay)} doubling up to ${duration(p.maxDelay)} (SIGN_IN_*); never a lockout`,
      '429 sign-in page or `too_many_requests`, `Retry-After`',
    ],
    [`${code(MCP_PATH)} requests`, perMinute(r.mcpPerMinute, 'per access token, or per address without one', 'RATE_LIMIT_MCP_PER_MINUTE'), '429 `too_many_requests`'],
    ['Uploads', perMinute(r.uploadPerMinute, 'per access token', 'RATE_LIMIT_UPLOAD_PER_MINUTE'), '429 `too_many_requests`, `Retry-After`'],
    ['Stored files of the school', `${bytes(config.storageQuotaBytes)} in all (STORAGE_QUOTA_BYTES)`, '413 `invalid_request`, naming what is used'],
    ['One uploaded file', bytes(MAX_FILE_BYTES), '413 `invalid_request`'],
    ['Registration body', `${bytes(config.registrationBodyLimit)} (REGISTRATION_BODY_LIMIT)`, '413 `invalid_request`'],
    [`${code(MCP_PATH)} body`, bytes(MCP_BODY_LIMIT_BYTES), '413 `invalid_request`'],
    ['Any other request body', bytes(BODY_LIMIT_BYTES), '413 `invalid_request`'],
  ];
  const shared = config.redisUrl
    ? 'The per-minute limits are counted in Redis, shared by every instance of this server.'
    : 'The per-minute limits are counted by each instance of this server on its own; the account and storage limits are kept in the database, shared by all.';
  return `${table(['What', 'Limit', 'Past it'], rows)}\n\n${shared} A 429 is a signal to slow down: wait for \`Retry-After\` seconds where it is given, then try again.`;
}
