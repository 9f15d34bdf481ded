/**
 * Fetching and keeping clients' metadata documents
 * (draft-ietf-oauth-client-id-metadata-document). Each instance keeps the
 * documents it fetched in memory, for as long as their Cache-Control says
 * within fixed bounds; concurrent requests for one document share one
 * fetch; each host is fetched from at a bounded rate. The request itself
 * goes through outboundRequest: resolved once, public addresses only
 * (CIMD_ALLOW_HOSTS excepted), no redirects, bounded in time and size.
 */
import type { Config } from '../../config/index.ts';
import type { ClientDocuments } from '../../deps.ts';
import type { ClientMetadata } from '../../store/types.ts';
import { AUTHORIZATION_SERVER as AS, type LoopbackHost } from '../../util/authorization-server.ts';
import { OutboundError, outboundRequest, type OutboundFailure } from '../../util/outbound-request.ts';
import { getDomain } from 'tldts';
import { TokenBuckets } from '../../util/token-buckets.ts';
import { OAuthError } from '../errors.ts';
import { checkClientIdUrl, checkMetadataDocument } from './metadata-document-rules.ts';

const CACHE = AS.limits.metadataDocumentCache;

type Entry =
  | { kind: 'document'; metadata: ClientMetadata; expiresAt: number }
  /** The fetch failed or the document was refused: remembered briefly, the reason kept to say again. */
  | { kind: 'failure'; description: string; detail: string; expiresAt: number };

/**
 * What the page says of a failed fetch. A host that resolves to a private
 * address, one that does not resolve and one that does not answer all read
 * alike: anyone may open the authorization page with a client_id of their
 * choice, and different words would let them map the names of the
 * server's own network. The reason goes to the log.
 */
const UNREACHABLE = 'it could not be fetched';
const WHY: Record<OutboundFailure, string> = {
  invalid_url: 'its URL cannot be fetched',
  forbidden_address: UNREACHABLE,
  timeout: UNREACHABLE,
  too_large: 'it is too large',
  network: UNREACHABLE,
};

/**
 * How long a document may be kept, in seconds: the draft's "The
 * authorization server SHOULD respect HTTP cache headers [RFC 9111] when
 * caching client metadata, but MAY define its own upper and/or lower bounds
 * on an acceptable cache lifetime". Without max-age, or with no-store or
 * no-cache, the lower bound: a document is never fetched for every request.
 */
export function cacheSeconds(cacheControl: string | undefined): number {
  const directives = (cacheControl ?? '').toLowerCase();
  if (/(^|[\s,])(no-store|no-cache)\b/.test(directives)) return CACHE.min;
  const maxAge = /(^|[\s,])max-age\s*=\s*"?(\d+)/.exec(directives);
  if (!maxAge) return CACHE.min;
  return Math.min(CACHE.max, Math.max(CACHE.min, Number(maxAge[2])));
}

/**
 * Whose budget of fetches a host spends: its registrable domain (the Public
 * Suffix List's, private suffixes such as github.io included, so each of
 * their owners has their own), so that `a.example.com`, `b.example.com` and
 * `example.com.` share one. A host without one (an IP literal, a single
 * label) is its own.
 */
export function fetchBudgetKey(hostname: string): string {
  return getDomain(hostname, { allowPrivateDomains: true }) ?? hostname.replace(/\.$/, '');
}

export interface MetadataDocumentSettings {
  settings: Config['clientDocuments'];
  loopbackHosts: readonly LoopbackHost[];
  now: () => number;
  /** Trust besides Node's store, for a test server in the same process. */
  extraCa?: string;
}

export class MetadataDocuments implements ClientDocuments {
  private readonly entries = new Map<string, Entry>();
  private readonly inFlight = new Map<string, Promise<Entry>>();
  private readonly hosts: TokenBuckets;

  constructor(private readonly options: MetadataDocumentSettings) {
    this.hosts = new TokenBuckets(options.settings.fetchesPerHostPerMinute, CACHE.entries);
  }

  async read(clientId: string): Promise<{ metadata: ClientMetadata; fetched: boolean }> {
    const url = checkClientIdUrl(clientId);
    const cached = this.entries.get(clientId);
    if (cached && cached.expiresAt > this.options.now()) return { metadata: usable(cached), fetched: false };
    const pending = this.inFlight.get(clientId);
    // Another request is fetching it: wait for that fetch rather than start a second one.
    if (pending) return { metadata: usable(await pending), fetched: false };
    const site = fetchBudgetKey(url.hostname);
    const allowed = this.hosts.take(site, this.options.now());
    if (!allowed.ok) {
      const e = new OAuthError('too_many_requests', `Lyceum fetched client metadata documents from ${site} too often just now; try again shortly.`);
      e.headers['retry-after'] = String(Math.ceil(allowed.retryAfterMs / 1000));
      throw e;
    }
    const fetching = this.fetch(clientId).finally(() => this.inFlight.delete(clientId));
    this.inFlight.set(clientId, fetching);
    const entry = await fetching;
    this.remember(clientId, entry);
    return { metadata: usable(entry), fetched: true };
  }

  private remember(clientId: string, entry: Entry): void {
    this.entries.delete(clientId);
    // Bounded: the oldest entry goes first (a Map keeps insertion order).
    if (this.entries.size >= CACHE.entries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(clientId, entry);
  }

  /** One fetch, turned into an entry; never throws for what the other server does. */
  private async fetch(url: string): Promise<Entry> {
    const { settings, now, extraCa } = this.options;
    // Whatever went wrong, it is remembered for the same time.
    const failure = (description: string, detail: string): Entry => ({
      kind: 'failure',
      description,
      detail,
      expiresAt: now() + CACHE.failure * 1000,
    });
    const failed = (why: string, detail: string) => failure(`The client metadata document at ${url} cannot be used: ${why}.`, detail);
    let response;
    try {
      response = await outboundRequest(url, {
        timeoutMs: settings.timeoutMs,
        maxBytes: settings.maxBytes,
        allowHosts: settings.allowHosts,
        headers: { accept: 'application/json' },
        ...(extraCa ? { extraCa } : {}),
      });
    } catch (err) {
      if (!(err instanceof OutboundError)) throw err;
      return failed(WHY[err.reason], `${err.reason}: ${err.message}`);
    }
    // The draft: "The authorization server MUST NOT automatically follow HTTP redirects when fetching
    // the Client ID Metadata Document", and it "MUST treat all other HTTP status codes [than 200] as an error".
    if (response.status >= 300 && response.status < 400) return failed('it answered with a redirect, which is not followed', `HTTP ${response.status}`);
    if (response.status !== 200) return failed(`it answered HTTP ${response.status}`, `HTTP ${response.status}`);
    try {
      const metadata = checkMetadataDocument(url, response.body, this.options.loopbackHosts);
      // Node joins repeated Cache-Control lines into one list, as RFC 9110 §5.3 reads them.
      return { kind: 'document', metadata, expiresAt: now() + cacheSeconds(response.headers['cache-control']) * 1000 };
    } catch (err) {
      if (!(err instanceof OAuthError)) throw err;
      return failure(err.description, 'refused document');
    }
  }
}

/** The entry's metadata, or the reason it has none as a fresh error (each request gets its own). */
function usable(entry: Entry): ClientMetadata {
  if (entry.kind === 'document') return entry.metadata;
  throw new OAuthError('invalid_client', entry.description).withDetail(entry.detail);
}
