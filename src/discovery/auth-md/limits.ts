import type { Config } from '../../config/index.ts';
import { AUTHORIZATION_SERVER } from '../../util/authorization-server.ts';
import { BODY_LIMIT_BYTES, MCP_BODY_LIMIT_BYTES } from '../../http/requests/body-limits.ts';
import { RATE_LIMIT_POLICIES, type RateLimitPolicy } from '../../http/requests/rate-limit.ts';
import { IDEMPOTENCY_KEY_MAX_LENGTH, IDEMPOTENCY_WAIT_MS } from '../../platform/idempotency.ts';
import { API_PREFIX } from '../../platform/routes/paths.ts';
import { PAGE_SIZE } from '../../platform/page-size.ts';
import { MCP_PATH } from '../../mcp/path.ts';
import { BULK_ENROLL_LIMIT } from '../../platform/progress/enroll-by-email.ts';
import { MAX_FILE_BYTES } from '../../platform/files/file-service.ts';
import { documentedPath, PROGRESS_PATHS } from '../../platform/progress/paths.ts';
import { readableBytes } from '../../util/readable-bytes.ts';
import { code, duration, table } from '../markdown.ts';

type LimitsConfig = Pick<Config, 'rateLimits' | 'passwordFailures' | 'storageQuotaBytes' | 'maxRegisteredClients' | 'unusedClientTtl' | 'registrationBodyLimit' | 'idempotencyKeyRetention'>;

/** What each rate-limit policy counts and what it answers past its quota; keyed by policy, so a new one does not compile until it is listed. */
const RATE_LIMITED: Record<RateLimitPolicy, { what: string; past: string }> = {
  register: { what: 'Registrations', past: '429 `too_many_requests`' },
  sign_in: { what: 'Sign-in form posts', past: '429 page' },
  device: { what: 'Device authorizations', past: '429 `too_many_requests`' },
  mcp: { what: `${code(MCP_PATH)} requests`, past: '429 `too_many_requests`' },
  upload: { what: 'Uploads', past: '429 `too_many_requests`' },
};

function rateLimitRow(config: LimitsConfig, policy: RateLimitPolicy): string[] {
  const { setting, per, read } = RATE_LIMIT_POLICIES[policy];
  const max = read(config.rateLimits);
  const limit = max > 0 ? `${max} a minute ${per} (${setting})` : `none on this server (${setting}=0)`;
  return [`${RATE_LIMITED[policy].what} (policy ${code(`"${policy}"`)})`, limit, `${RATE_LIMITED[policy].past}, \`Retry-After\``];
}

const bytes = (n: number) => `${readableBytes(n)} (${n} bytes)`;

/**
 * Every limit a client may meet, in one table, with what it answers past it.
 * Each value is read from the configuration or the constant the code
 * enforces, so the table is what this server does.
 */
export function limitsTable(config: LimitsConfig): string {
  const p = config.passwordFailures;
  const codes = AUTHORIZATION_SERVER.deviceFlow.wrongCodes;
  const rows: string[][] = [
    rateLimitRow(config, 'register'),
    ['Registered clients', `${config.maxRegisteredClients} at once (MAX_REGISTERED_CLIENTS)`, '429 `too_many_requests`, `Retry-After`'],
    ['A client that never obtained a token', `deleted ${duration(config.unusedClientTtl)} after registering (UNUSED_CLIENT_TTL_SECONDS)`, 'its client_id becomes `invalid_client`'],
    rateLimitRow(config, 'sign_in'),
    [
      'Password checks of one account (sign-in and `current_password`), from any address',
      `${p.free} wrong in a row, then a wait of ${duration(p.firstDelay)} doubling up to ${duration(p.maxDelay)} (SIGN_IN_*); never a lockout`,
      '429 sign-in page or `too_many_requests`, `Retry-After`',
    ],
    rateLimitRow(config, 'device'),
    [
      'Wrong codes on the device page',
      `${codes.perAccount.free} wrong in a row from one account, or ${codes.perAddress.free} from one address, then a wait of ${duration(codes.perAccount.firstDelay)} doubling up to ${duration(codes.perAccount.maxDelay)}; a right code does not count`,
      '429 page, `Retry-After`',
    ],
    rateLimitRow(config, 'mcp'),
    rateLimitRow(config, 'upload'),
    ['Stored files of the school', `${bytes(config.storageQuotaBytes)} in all (STORAGE_QUOTA_BYTES)`, '413 `invalid_request`, naming what is used'],
    ['One uploaded file', bytes(MAX_FILE_BYTES), '413 `invalid_request`'],
    [`Rows of one ${code(`POST ${documentedPath(PROGRESS_PATHS.enrollByEmailBulk)}`)}`, `${BULK_ENROLL_LIMIT} (emails and students together)`, '400 `invalid_request`, nothing written'],
    ['Registration body', `${bytes(config.registrationBodyLimit)} (REGISTRATION_BODY_LIMIT)`, '413 `invalid_request`'],
    [`${code(MCP_PATH)} body`, bytes(MCP_BODY_LIMIT_BYTES), '413 `invalid_request`'],
    ['Any other request body', bytes(BODY_LIMIT_BYTES), '413 `invalid_request`'],
    [
      `A page of a ${code(`GET ${API_PREFIX}/…`)} list`,
      `\`limit\` ${PAGE_SIZE.min} to ${PAGE_SIZE.max} (${PAGE_SIZE.records} when not given, more pages through \`next_cursor\`; files: ${PAGE_SIZE.files}, one page)`,
      '400 `invalid_request` outside the range',
    ],
    ['An `Idempotency-Key`', `1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} printable ASCII characters`, '400 `invalid_request`'],
    [
      `The answer kept for an \`Idempotency-Key\` of a ${code(`POST ${API_PREFIX}/…`)}`,
      `${duration(config.idempotencyKeyRetention)} (IDEMPOTENCY_KEY_RETENTION_SECONDS); a duplicate sent while the first runs waits for it up to ${IDEMPOTENCY_WAIT_MS / 1000} s`,
      'then the key is new again; past the wait 409 `idempotency_key_in_use`, `Retry-After`',
    ],
  ];
  return table(['What', 'Limit', 'Past it'], rows);
}
