import { randomBytes } from 'node:crypto';
import type { Config } from '../config/index.ts';
import { startServer } from '../server.ts';
import { openStore } from '../store/kysely/open.ts';
import { createUser } from './users.ts';

/**
 * `lyceum serve`: migrations, first-start owner, listen, background purge,
 * graceful stop on SIGINT/SIGTERM.
 */
export async function serveCommand(config: Config): Promise<void> {
  const store = openStore(config.database);
  await store.migrate();
  if ((await store.users.list()).length === 0) {
    const password = randomBytes(12).toString('base64url');
    const email = process.env.OWNER_EMAIL ?? 'owner@lyceum.test';
    await createUser(store, { email, password, name: 'School owner', role: 'owner' });
    // Printed once, to the terminal only: it is stored as an argon2id hash.
    process.stdout.write(`\nFirst start: created the school owner\n  email:    ${email}\n  password: ${password}\nChange it with: npx lyceum users passwd --email ${email} --password NEW_PASSWORD\n\n`);
  }
  const server = await startServer(config, { store });
  const purge = setInterval(() => {
    const before = Date.now() - 24 * 3600 * 1000;
    void Promise.all([store.codes.purgeExpired(before), store.tokens.purgeExpired(before), store.sessions.purgeExpired(before)]).catch(
      (err: unknown) => server.app.log.warn({ err }, 'purge failed'),
    );
  }, 10 * 60 * 1000);
  purge.unref();
  process.stdout.write(`Lyceum is serving ${config.issuer} (listening on ${server.url}, ${store.kind} store)\n`);
  const stop = async () => {
    clearInterval(purge);
    await server.close();
    await store.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
