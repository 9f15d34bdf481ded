import type { FastifyInstance } from 'fastify';
import { listIndexes } from './platform/list-indexes.ts';
import { buildApp } from './app.ts';
import type { Config } from './config/index.ts';
import type { Deps } from './deps.ts';
import { idTokenSigner } from './oidc/id-token.ts';
import { MetadataDocuments } from './oauth/clients/metadata-document.ts';
import { KeyRing } from './keys/keyring.ts';
import { Readiness } from './ops/health.ts';
import type { AppMetrics } from './ops/metrics.ts';
import { closeWithin, stopGracefully } from './ops/shutdown.ts';
import { openStore } from './store/kysely/open.ts';
import { WebhookWorker } from './platform/webhooks/delivery-worker.ts';

export interface RunningServer {
  app: FastifyInstance;
  deps: Deps;
  url: string;
  /** GET /readyz's state: markStopping() turns it to 503 (close() does it first). */
  readiness: Readiness;
  /** The metrics listener's URL (METRICS_PORT), when it runs. */
  metricsUrl?: string;
  /** Closes at once: the listener, then the store once requests in flight are done or the grace period (SHUTDOWN_GRACE_MS) has passed. */
  close(): Promise<void>;
  /** The clean stop of SIGTERM/SIGINT: drain, then close within a grace period (src/ops/shutdown.ts). */
  stop(): Promise<void>;
}

/** prom-client and the metrics module, loaded only when METRICS_PORT asks for them. */
async function loadMetrics(): Promise<AppMetrics> {
  const { AppMetrics } = await import('./ops/metrics.ts');
  return new AppMetrics();
}

/**
 * Boot order: config (already validated) → store with migrations →
 * services → routes → listen. A store passed in is already migrated (serve.ts
 * migrates before it looks for the first owner).
 */
export async function startServer(config: Config, overrides: Partial<Deps> = {}): Promise<RunningServer> {
  let store = overrides.store;
  if (!store) {
    store = openStore(config.database, config.databaseLimits);
    await store.migrate(listIndexes());
  }
  const now = overrides.now ?? Date.now;
  const keys = overrides.keys ?? (await KeyRing.open(store, config, now));
  const clientDocuments = new MetadataDocuments({ settings: config.clientDocuments, loopbackHosts: config.loopbackHosts, now });
  const deps: Deps = { config, store, now, keys, idTokens: idTokenSigner(keys, config, now), clientDocuments, ...overrides };
  const readiness = new Readiness(store, config.readyTimeoutMs);
  const metrics = config.metrics.port > 0 ? await loadMetrics() : undefined;
  const app = await buildApp(deps, { readiness, metrics });
  let address: string;
  let metricsUrl: string | undefined;
  try {
    // The metrics listener first: a port already taken stops the start before the public port opens.
    if (metrics) metricsUrl = await metrics.listen(config.metrics.host, config.metrics.port);
    address = await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    await metrics?.close();
    await app.close();
    if (!overrides.store) await store.close();
    throw err;
  }
  // Housekeeping starts once requests can be answered: it takes nothing from the start.
  store.startMaintenance();
  // Webhook deliveries, from the outbox every instance shares (src/platform/webhooks/).
  const webhooks = new WebhookWorker(deps, app.log);
  webhooks.start();
  const running: RunningServer = {
    app,
    deps,
    url: address,
    readiness,
    ...(metricsUrl ? { metricsUrl } : {}),
    async close() {
      // A load balancer probing /readyz meanwhile stops sending requests here.
      readiness.markStopping();
      await closeWithin(app, config.shutdown.graceMs);
      await webhooks.stop();
      await metrics?.close();
      if (!overrides.store) await store.close();
    },
    stop: () => stopGracefully(running, config.shutdown),
  };
  return running;
}
