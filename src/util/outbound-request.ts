import { lookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import tls from 'node:tls';
import ipaddr from 'ipaddr.js';
import { Slots } from './slots.ts';

/**
 * Requests the server makes to addresses others chose (a client's metadata
 * document, a webhook receiver). Whoever chooses the URL could aim it at the
 * server's own network, so the host is resolved once, every address it
 * resolves to is checked, and the connection goes to the address checked:
 * a second lookup by the HTTP stack could answer differently (DNS
 * rebinding). Redirects are never followed; the caller sees the 3xx.
 */

export type OutboundFailure = 'invalid_url' | 'forbidden_address' | 'timeout' | 'too_large' | 'network';

export class OutboundError extends Error {
  constructor(
    readonly reason: OutboundFailure,
    message: string,
  ) {
    super(message);
    this.name = 'OutboundError';
  }
}

export interface OutboundRequest {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** The whole exchange, connection to last byte. */
  timeoutMs: number;
  /** A longer answer is abandoned as too_large. */
  maxBytes: number;
  /** Host names (lower case) exempt from the address check, for tests and private deployments. */
  allowHosts?: ReadonlySet<string>;
  /** Plain http is allowed only to these; https is always allowed. */
  allowHttp?: 'never' | 'loopback';
  /**
   * Certificate authorities trusted besides Node's own store, for a test
   * server in the same process (NODE_EXTRA_CA_CERTS is read only at start).
   */
  extraCa?: string;
}

export interface OutboundResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** The address the request went to. */
  address: string;
}

/**
 * Only globally routable unicast addresses are public: ipaddr.js names every
 * special-use range (loopback, private, link-local, multicast, unspecified,
 * carrier-grade NAT, documentation, 6to4, Teredo, NAT64, unique-local...) and
 * reads IPv4-mapped IPv6 addresses as the IPv4 address they carry. It names
 * no range for the rest of the reserved IPv6 space, so an IPv6 address must
 * also lie in 2000::/3, the only block IANA allocates as global unicast (RFC
 * 4291 §2.4); IPv4-compatible forms such as ::127.0.0.1 or ::169.254.169.254
 * lie outside it.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address);
  if (parsed.range() !== 'unicast') return false;
  return parsed.kind() === 'ipv4' || (parsed as ipaddr.IPv6).match(ipaddr.IPv6.parseCIDR('2000::/3'));
}

function isLoopbackAddress(address: string): boolean {
  return ipaddr.isValid(address) && ipaddr.process(address).range() === 'loopback';
}

function parseTarget(raw: string, allowHttp: 'never' | 'loopback'): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundError('invalid_url', 'not an absolute URL');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && allowHttp === 'loopback')) {
    throw new OutboundError('invalid_url', allowHttp === 'loopback' ? 'only https, or http to a loopback address' : 'only https');
  }
  if (url.username || url.password) throw new OutboundError('invalid_url', 'a URL with credentials');
  return url;
}

/**
 * The system resolver runs on libuv's thread pool (four threads, which
 * argon2 and file reads share) and a lookup cannot be cancelled: a slow zone
 * holds its thread until the resolver gives up, whatever our deadline says.
 * So at most two lookups for URLs that others chose run at once; the rest
 * wait for a place within their own deadline, and never start once it has
 * passed.
 */
const LOOKUPS = new Slots(2);

/** Resolves the host once and returns the address to connect to, after checking every answer. */
async function checkedAddress(
  url: URL,
  options: Required<Pick<OutboundRequest, 'allowHttp'>> & Pick<OutboundRequest, 'allowHosts'>,
  deadline: AbortSignal,
): Promise<{ address: string; family: number }> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  const answers = isIP(host) ? [{ address: host, family: isIP(host) }] : await LOOKUPS.run(() => lookup(host, { all: true, verbatim: true }), deadline).catch(() => []);
  if (answers.length === 0) throw new OutboundError('network', `${host} does not resolve`);
  const exempt = options.allowHosts?.has(host) ?? false;
  for (const { address } of answers) {
    const plainHttpOk = url.protocol === 'https:' || isLoopbackAddress(address);
    if (!plainHttpOk) throw new OutboundError('forbidden_address', 'plain http to an address other than loopback');
    if (url.protocol === 'http:') continue;
    if (!exempt && !isPublicAddress(address)) throw new OutboundError('forbidden_address', `${host} resolves to an address that is not public`);
  }
  return answers[0]!;
}

/**
 * The checks outboundRequest makes before it connects, without connecting:
 * to refuse a URL when it is given (a webhook receiver at subscription) as
 * well as each time it is used, since what a name resolves to may change.
 */
export async function checkOutboundTarget(raw: string, request: Pick<OutboundRequest, 'allowHosts' | 'allowHttp' | 'timeoutMs'>): Promise<void> {
  const allowHttp = request.allowHttp ?? 'never';
  const url = parseTarget(raw, allowHttp);
  const deadline = AbortSignal.timeout(request.timeoutMs);
  await Promise.race([
    checkedAddress(url, { allowHttp, ...(request.allowHosts ? { allowHosts: request.allowHosts } : {}) }, deadline),
    new Promise<never>((_, reject) => deadline.addEventListener('abort', () => reject(new OutboundError('timeout', `${url.hostname} did not resolve within ${request.timeoutMs} ms`)), { once: true })),
  ]);
}

/** One request to a URL chosen by someone else, bounded in time and size. */
export async function outboundRequest(raw: string, request: OutboundRequest): Promise<OutboundResponse> {
  const allowHttp = request.allowHttp ?? 'never';
  const url = parseTarget(raw, allowHttp);
  const deadline = AbortSignal.timeout(request.timeoutMs);
  const target = await Promise.race([
    checkedAddress(url, { allowHttp, ...(request.allowHosts ? { allowHosts: request.allowHosts } : {}) }, deadline),
    new Promise<never>((_, reject) => deadline.addEventListener('abort', () => reject(new OutboundError('timeout', `no answer within ${request.timeoutMs} ms`)), { once: true })),
  ]);
  // The HTTP stack "looks up" the host name through this function, which
  // answers with the address already checked; TLS still verifies the
  // certificate against the host name.
  const pinned: LookupFunction = (_host, opts, callback) => {
    if (opts.all) (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [target]);
    else callback(null, target.address, target.family);
  };
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<OutboundResponse>((resolve, reject) => {
    const fail = (err: unknown) => reject(toOutboundError(err, request.timeoutMs));
    const req = client.request(
      url,
      {
        method: request.method ?? 'GET',
        headers: request.headers,
        lookup: pinned,
        signal: deadline,
        agent: false,
        // `ca` replaces the default trust store, so the extra one goes beside Node's bundled roots.
        ...(request.extraCa ? { ca: [...tls.rootCertificates, request.extraCa] } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= request.maxBytes) return void chunks.push(chunk);
          // The first error settles the promise; what the socket does after it is ignored.
          fail(new OutboundError('too_large', `the answer is larger than ${request.maxBytes} bytes`));
          req.destroy();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), address: target.address }));
        res.on('error', fail);
      },
    );
    req.on('error', fail);
    req.end(request.body);
  });
}

function toOutboundError(err: unknown, timeoutMs: number): OutboundError {
  if (err instanceof OutboundError) return err;
  const name = (err as { name?: string }).name;
  if (name === 'AbortError' || name === 'TimeoutError') return new OutboundError('timeout', `no answer within ${timeoutMs} ms`);
  return new OutboundError('network', (err as Error).message ?? 'the request failed');
}
