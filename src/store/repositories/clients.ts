import type { ApplicationType, ClientAuthMethod, GrantType, ResponseType, SigningAlg } from '../../util/authorization-server.ts';

/** Registered client metadata, as echoed by the registration endpoint (RFC 7591 §3.2.1). */
export interface ClientMetadata {
  client_name?: string;
  redirect_uris: string[];
  grant_types: GrantType[];
  response_types: ResponseType[];
  token_endpoint_auth_method: ClientAuthMethod;
  application_type: ApplicationType;
  scope?: string;
  client_uri?: string;
  logo_uri?: string;
  tos_uri?: string;
  policy_uri?: string;
  software_id?: string;
  software_version?: string;
  contacts?: string[];
  /** OIDC Dynamic Registration §2; the first of the supported algorithms when absent. */
  id_token_signed_response_alg?: SigningAlg;
}

/**
 * Who registered a client: `open`, itself at the registration endpoint
 * (RFC 7591; loopback redirect URIs only); `operator`, the school with
 * `lyceum clients add` (https and private-use-scheme redirect URIs too;
 * never purged, and not counted against the open-registration cap).
 */
export type ClientRegistration = 'open' | 'operator';

export interface Client {
  id: string;
  secretHash: string | null;
  metadata: ClientMetadata;
  createdAt: number;
  /** When the client last obtained a token, to the minute; null: never. Stores always fill it in. */
  lastUsedAt?: number | null;
  /** Who registered it; `open` when absent. Stores always fill it in. */
  registration?: ClientRegistration;
}

export interface ClientStore {
  create(client: Client): Promise<void>;
  /**
   * Contract: creates the client only while fewer than `maxClients` are
   * registered through open registration (operator clients and clients
   * saved from a metadata document do not count); false when the cap is
   * reached. Racing callers (in one process
   * or several on one database) never together pass the cap.
   */
  createWithinCap(client: Client, maxClients: number): Promise<boolean>;
  /**
   * Contract: records that the client obtained a token at `now`. Writes only
   * when the stored time is absent or at least LAST_USED_RESOLUTION_MS older,
   * so a burst of token requests costs one write a minute.
   */
  markUsed(id: string, now: number): Promise<void>;
  /**
   * Deletes open-registration clients that never obtained a token (no
   * lastUsedAt, no token) and were registered before `registeredBefore`
   * (operator clients are never purged), with their codes, in
   * small batches; returns how many.
   */
  purgeNeverUsed(registeredBefore: number): Promise<number>;
  /**
   * Contract: stores a client known by its metadata document: creates it, or
   * replaces the metadata of the one with this id, keeping its createdAt and
   * lastUsedAt (and so its codes, tokens and consents). Racing callers leave
   * one row. It never counts against the registration cap.
   */
  saveFromDocument(id: string, metadata: ClientMetadata, now: number): Promise<void>;
  find(id: string): Promise<Client | undefined>;
  list(): Promise<Client[]>;
  /** Contract: deletes the client with its codes, tokens and grants; false if it did not exist. */
  delete(id: string): Promise<boolean>;
}

/** A client's last use is kept to the minute: a token request writes it at most once a minute per client. */
export const LAST_USED_RESOLUTION_MS = 60_000;
