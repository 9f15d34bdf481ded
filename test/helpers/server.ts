import { loadConfig } from '../../src/config/index.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { MetadataDocuments } from '../../src/oauth/clients/metadata-document.ts';
import { createUser } from '../../src/cli/users.ts';
import type { Role } from '../../src/access/roles.ts';
import { freshDatabaseUrl, type StoreKind } from './stores.ts';
import { freePort } from '../../scripts/free-port.ts';

export { freePort };

export interface TestServer extends RunningServer {
  issuer: string;
  /** Adds a user; the password is returned for the sign-in form. */
  addUser(role?: Role, email?: string): Promise<{ email: string; password: string; id: string }>;
  /** Moves the server's clock forward. */
  advance(ms: number): void;
  /**
   * Stops the server's clock where it stands until the returned function
   * restarts it; advance() still moves a stopped clock, so a test can land on
   * the exact millisecond where a window ends.
   */
  freeze(): () => void;
}

/**
 * Starts what listens on a port found free. Between finding it and listening
 * on it, another process may take it: a connection going out (to PostgreSQL,
 * say) draws its local port from the same range. Then the start is tried
 * again on another port, a few times, unless the port was chosen by the test.
 */
async function onAFreePort<T>(start: (port: number) => Promise<T>, mayMove: boolean): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(await freePort());
    } catch (err) {
      if (!mayMove || (err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt === 5) throw err;
    }
  }
}

export interface TestServerOptions {
  /** A certificate authority the server trusts for the https requests it makes (client metadata documents). */
  extraCa?: string;
}

let userCounter = 0;

/**
 * The real app, listening on a free loopback port, on a fresh database of the
 * given kind. Settings can be overridden with environment-variable names.
 */
export async function startTestServer(kind: StoreKind, env: Record<string, string> = {}, options: TestServerOptions = {}): Promise<TestServer> {
  const databaseUrl = env.DATABASE_URL ?? (await freshDatabaseUrl(kind));
  let offset = 0;
  let frozenAt: number | undefined;
  const now = () => (frozenAt ?? Date.now()) + offset;
  const start = async (port: number) => {
    const config = loadConfig({
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'silent',
      // Many sign-ins from one address are the point of a test run; rate-limit tests set their own.
      RATE_LIMIT_SIGN_IN_PER_MINUTE: '0',
      RATE_LIMIT_REGISTER_PER_MINUTE: '0',
      RATE_LIMIT_DEVICE_PER_MINUTE: '0',
      RATE_LIMIT_MCP_PER_MINUTE: '0',
      RATE_LIMIT_UPLOAD_PER_MINUTE: '0',
      KEYS_SECRET: 'test-keys-secret-0123456789abcdef0123456789',
      ...env,
    });
    const clientDocuments = new MetadataDocuments({ settings: config.clientDocuments, loopbackHosts: config.loopbackHosts, now, ...(options.extraCa ? { extraCa: options.extraCa } : {}) });
    return { config, server: await startServer(config, { now, clientDocuments }) };
  };
  const { config, server } = await onAFreePort(start, env.PORT === undefined);
  return {
    ...server,
    issuer: config.issuer,
    advance(ms) {
      offset += ms;
    },
    freeze() {
      frozenAt ??= Date.now();
      return () => {
        // Restarting keeps the time the clock showed: what was skipped stays skipped.
        if (frozenAt !== undefined) offset -= Date.now() - frozenAt;
        frozenAt = undefined;
      };
    },
    async addUser(role: Role = 'owner', email?: string) {
      const password = `pw-${Math.random().toString(36).slice(2)}-secret`;
      const address = email ?? `user${++userCounter}-${Date.now()}@school.test`;
      const user = await createUser(server.deps.store, { email: address, password, role, name: `Test ${role}` });
      return { email: address, password, id: user.id };
    },
  };
}
