import type { Config } from '../config/index.ts';
import { MetadataRefusal, normaliseClientMetadata } from '../oauth/clients/client-metadata.ts';
import { newClientId, newSecret, PREFIX, sha256 } from '../oauth/issued-tokens/secrets.ts';
import type { Client, ClientMetadata, Store } from '../store/types.ts';
import { parseFlags, UsageError } from './args.ts';
import { DEVICE_CODE_GRANT } from '../util/authorization-server.ts';

const USAGE = 'usage: lyceum clients add --name N [--redirect-uri URI ...] [--device] [--confidential] [--scope S] | list | show CLIENT_ID | delete CLIENT_ID';

/** The flag that sets each metadata field, for naming it in an error. */
const FLAGS: Record<string, string> = { client_name: '--name', redirect_uris: '--redirect-uri', scope: '--scope' };

/** When the client last obtained a token (to the minute), or "never". */
const lastUsed = (c: Client): string => (c.lastUsedAt ? new Date(c.lastUsedAt).toISOString() : 'never');

/** Who registered the client, as `list` and `show` print it. */
const registeredBy = (c: Client): string => c.registration ?? 'open';

/**
 * `clients add`: a client the school vouches for. Its redirect URIs may be
 * https or a private-use scheme as well as loopback (operator-redirect-uri.ts);
 * with --device it may also sign people in with the device grant (RFC 8628),
 * and needs no redirect URI; with --confidential it gets a secret, returned
 * here once and stored only as its SHA-256.
 */
export async function addOperatorClient(store: Store, config: Pick<Config, 'loopbackHosts'>, args: string[]): Promise<{ client: Client; secret: string | undefined }> {
  const { values, positionals } = parseFlags(args, {
    name: { type: 'string' },
    'redirect-uri': { type: 'string', multiple: true },
    device: { type: 'boolean' },
    confidential: { type: 'boolean' },
    scope: { type: 'string' },
  });
  if (positionals.length > 0) throw new UsageError(`clients add: unexpected argument "${positionals[0]}"; ${USAGE}`);
  const name = values.name?.trim();
  if (!name) throw new UsageError('clients add: --name is required (the consent page shows it)');
  const uris = values['redirect-uri'] ?? [];
  if (uris.length === 0 && !values.device) throw new UsageError('clients add: at least one --redirect-uri is required, or --device for an app that signs in without a browser');
  const input = {
    client_name: name,
    redirect_uris: uris,
    grant_types: [...(uris.length > 0 ? ['authorization_code'] : []), 'refresh_token', ...(values.device ? [DEVICE_CODE_GRANT] : [])],
    token_endpoint_auth_method: values.confidential ? 'client_secret_post' : 'none',
    scope: values.scope,
  };
  let metadata: ClientMetadata;
  try {
    metadata = normaliseClientMetadata(input, 'operator', config.loopbackHosts);
  } catch (e) {
    if (e instanceof MetadataRefusal) throw new UsageError(`${FLAGS[e.field] ?? e.field}: ${e.rule}`);
    throw e;
  }
  const secret = values.confidential ? newSecret(PREFIX.secret) : undefined;
  const client: Client = { id: newClientId(), secretHash: secret ? sha256(secret) : null, metadata, createdAt: Date.now(), lastUsedAt: null, registration: 'operator' };
  await store.clients.create(client);
  return { client, secret };
}

async function addClient(store: Store, config: Pick<Config, 'loopbackHosts'>, args: string[]): Promise<void> {
  const { client, secret } = await addOperatorClient(store, config, args);
  const m = client.metadata;
  console.log(`added ${secret ? 'confidential' : 'public'} client "${m.client_name}", registered by the school`);
  console.log(`client_id: ${client.id}`);
  if (secret) {
    console.log(`client_secret: ${secret}`);
    console.log('The secret is shown only this once: Lyceum keeps only its hash. Send it as client_secret in the token request body (client_secret_post).');
  }
  if (m.redirect_uris.length > 0) console.log(`redirect_uris: ${m.redirect_uris.join(' ')}`);
  console.log(`grant_types: ${m.grant_types.join(' ')}`);
  if (m.scope) console.log(`scope: ${m.scope}`);
}

export async function clientsCommand(store: Store, config: Pick<Config, 'loopbackHosts'>, args: string[]): Promise<void> {
  const [sub, id] = args;
  if (sub === 'add') return addClient(store, config, args.slice(1));
  if (sub === 'list') {
    const clients = await store.clients.list();
    if (clients.length === 0) return console.log('no clients');
    console.log(`${'CLIENT_ID'.padEnd(clients[0]!.id.length)}  ${'AUTH_METHOD'.padEnd(18)}  ${'REGISTERED'.padEnd(24)}  ${'LAST_USED'.padEnd(24)}  ${'BY'.padEnd(8)}  NAME`);
    for (const c of clients) {
      const when = new Date(c.createdAt).toISOString();
      console.log(`${c.id}  ${c.metadata.token_endpoint_auth_method.padEnd(18)}  ${when}  ${lastUsed(c).padEnd(24)}  ${registeredBy(c).padEnd(8)}  ${c.metadata.client_name ?? '(unnamed)'}`);
    }
    return;
  }
  if (sub === 'show') {
    if (!id) throw new UsageError('usage: lyceum clients show CLIENT_ID');
    const c = await store.clients.find(id);
    if (!c) throw new UsageError(`no client ${id}`);
    // Never the secret, nor its hash: neither is needed to manage the client.
    console.log(
      JSON.stringify(
        {
          client_id: c.id,
          registration: registeredBy(c),
          created_at: new Date(c.createdAt).toISOString(),
          last_used_at: c.lastUsedAt ? new Date(c.lastUsedAt).toISOString() : null,
          ...c.metadata,
        },
        null,
        2,
      ),
    );
    return;
  }
  if (sub === 'delete') {
    if (!id) throw new UsageError('usage: lyceum clients delete CLIENT_ID');
    if (!(await store.clients.delete(id))) throw new UsageError(`no client ${id}`);
    console.log(`deleted ${id} with its codes, tokens and grants`);
    return;
  }
  throw new UsageError(USAGE);
}
