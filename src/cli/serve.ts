import { randomBytes } from 'node:crypto';
import { listIndexes } from '../platform/list-indexes.ts';
import type { Config } from '../config/index.ts';
import { DEMO_SCHOOL_NAME, isPlatformEmpty, seedDemo } from '../demo/seed.ts';
import { startServer } from '../server.ts';
import { openStore } from '../store/kysely/open.ts';
import { DuplicateError } from '../store/types.ts';
import { announceOwner } from './owner-password.ts';
import { purgeOnce } from './purge.ts';
import { createUser } from './users.ts';

/**
 * `lyceum serve`: migrations, first-start owner and demo school, listen, background purge,
 * clean stop on SIGINT/SIGTERM (drain, then close).
 */
export async function serveCommand(config: Config): Promise<void> {
  const store = openStore(config.database, config.databaseLimits);
  await store.migrate(listIndexes());
  if (!(await store.users.any())) {
    const password = randomBytes(12).toString('base64url');
    const email = config.ownerEmail;
    try {
      await createUser(store, { email, password, name: 'School owner', role: 'owner' });
      // Stored as an argon2id hash; handed over once, to a terminal or an owner-only file.
      announceOwner(email, password, config.database);
    } catch (err) {
      // Another instance starting on the same database created the owner first.
      if (!(err instanceof DuplicateError)) throw err;
    }
  }
  if (await isPlatformEmpty(store)) {
    try {
      const counts = await seedDemo(store, Date.now());
      process.stdout.write(
        `First start: added the demo school "${DEMO_SCHOOL_NAME}" (${counts.courses} courses, ${counts.students} students, ${counts.orders} orders); reset it any time with: npx lyceum seed --demo\n`,
      );
    } catch (err) {
      // Another instance on the same database seeded it at the same moment.
      if (!(err instanceof DuplicateError)) throw err;
    }
  }
  const server = await startServer(config, { store });
  // Background purge of what expired (or was revoked) over a day ago, and of clients never used
  // (purge.ts). The stores delete in small batches and yield between them, so requests keep being
  // served; runs never overlap.
  let purging = false;
  let stopping = false;
  const purge = setInterval(() => {
    if (purging) return;
    purging = true;
    const started = Date.now();
    void (async () => {
      const counts = await purgeOnce(store, config, started);
      server.app.log.info({ event: 'purge', ...counts, ms: Date.now() - started }, 'expired credentials and unused clients purged');
    })()
      .catch((err: unknown) => {
        if (!stopping) server.app.log.warn({ err }, 'purge failed');
      })
      .finally(() => {
        purging = false;
      });
  }, config.purgeInterval * 1000);
  purge.unref();
  const metrics = server.metricsUrl ? `; Prometheus metrics at ${server.metricsUrl}/metrics` : '';
  process.stdout.write(`Lyceum is serving ${config.issuer} (listening on ${server.url}, ${store.kind} store${metrics})\n`);
  // Drain, then close (src/ops/shutdown.ts); a second signal meanwhile changes nothing.
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    clearInterval(purge);
    await server.stop();
    await store.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
