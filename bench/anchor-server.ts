/**
 * The authorization server the bench measures Lyceum's registration and
 * refresh beside, in a process of its own (PORT is given by the bench):
 * node-oidc-provider with open dynamic registration, refresh tokens rotated
 * on every use, and its state in memory (the most favourable store it has).
 *
 * Lyceum's refresh scenario gets its tokens through the code flow; this
 * server has no sign-in pages, so POST /bench/refresh-tokens?client_id=&count=
 * mints `count` refresh tokens for a registered client, each of a grant of
 * its own, as a code exchange would leave them. Neither server issues an ID
 * token on refresh here: the scope carries no `openid`.
 */
import { createServer } from 'node:http';
import Provider, { type Adapter, type AdapterPayload } from 'oidc-provider';

const port = Number(process.env.PORT);
const SCOPE = 'offline_access profile email';

/** Every model in one Map, kept for the life of the process: no eviction to lose a token mid-run. */
const entries = new Map<string, AdapterPayload>();
const index = new Map<string, string>();

class MapAdapter implements Adapter {
  constructor(private readonly model: string) {}
  private key = (id: string) => `${this.model}:${id}`;
  async upsert(id: string, payload: AdapterPayload): Promise<void> {
    entries.set(this.key(id), payload);
    if (payload.grantId) index.set(`grant:${payload.grantId}:${this.key(id)}`, this.key(id));
    if (payload.uid) index.set(`uid:${payload.uid}`, id);
    if (payload.userCode) index.set(`userCode:${payload.userCode}`, id);
  }
  async find(id: string): Promise<AdapterPayload | undefined> {
    return entries.get(this.key(id));
  }
  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    const id = index.get(`uid:${uid}`);
    return id === undefined ? undefined : this.find(id);
  }
  async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    const id = index.get(`userCode:${userCode}`);
    return id === undefined ? undefined : this.find(id);
  }
  async consume(id: string): Promise<void> {
    const entry = entries.get(this.key(id));
    if (entry) entry.consumed = Math.floor(Date.now() / 1000);
  }
  async destroy(id: string): Promise<void> {
    entries.delete(this.key(id));
  }
  async revokeByGrantId(grantId: string): Promise<void> {
    for (const [name, key] of index) {
      if (!name.startsWith(`grant:${grantId}:`)) continue;
      entries.delete(key);
      index.delete(name);
    }
  }
}

const provider = new Provider(`http://127.0.0.1:${port}`, {
  adapter: MapAdapter,
  features: { registration: { enabled: true }, devInteractions: { enabled: false } },
  scopes: ['openid', 'offline_access', 'profile', 'email'],
  findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
  rotateRefreshToken: true,
  // Lyceum's paths, so the scenarios send the same requests to both.
  routes: { registration: '/api/oauth/register', token: '/api/oauth/token' },
});
provider.on('server_error', (_ctx, err) => console.error(err));

async function mintRefreshTokens(clientId: string, count: number): Promise<string[]> {
  const client = await provider.Client.find(clientId);
  if (!client) throw new Error(`no client ${clientId}`);
  const tokens: string[] = [];
  for (let i = 0; i < count; i++) {
    const grant = new provider.Grant({ accountId: 'bench', clientId });
    grant.addOIDCScope(SCOPE);
    const grantId = await grant.save();
    tokens.push(await new provider.RefreshToken({ accountId: 'bench', client, grantId, scope: SCOPE, gty: 'authorization_code' }).save());
  }
  return tokens;
}

const handle = provider.callback();
createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://anchor');
  if (req.method !== 'POST' || url.pathname !== '/bench/refresh-tokens') return void handle(req, res);
  mintRefreshTokens(url.searchParams.get('client_id') ?? '', Number(url.searchParams.get('count') ?? 1)).then(
    (tokens) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(tokens)),
    (err: unknown) => res.writeHead(400, { 'content-type': 'text/plain' }).end(String(err)),
  );
}).listen(port, '127.0.0.1');
