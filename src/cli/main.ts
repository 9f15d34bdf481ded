import { ConfigError, loadConfig } from '../config/index.ts';
import { listIndexes } from '../platform/list-indexes.ts';
import { settingsHelp } from '../config/configuration-doc.ts';
import { openStore } from '../store/kysely/open.ts';
import { DuplicateError } from '../store/types.ts';
import { UsageError } from './args.ts';

const HELP = `lyceum — the online school platform

Commands:
  serve                         start the server (PORT, HOST, PUBLIC_URL, DATABASE_URL, ...)
  migrate                       apply pending database migrations
  users add --email E --password P [--name N] [--role owner|admin|lecturer|student]
  users passwd --email E --password P   also signs the user out everywhere (sessions ended, tokens revoked)
  users list
  clients add --name N --redirect-uri URI [--redirect-uri URI ...] [--confidential] [--scope S]
                                an app the school vouches for: https or private-use-scheme (cursor://...) redirect URIs too
  clients list | show ID | delete ID
  keys rotate | list            ID-token signing keys
  seed --demo                   replace all school data with the demo school (users and apps are kept)
  seed --scale N                the demo school grown to N students with five years of history (for load tests)
  analytics rebuild             count the analytics figures again from the records (after a restore or import)
  help                          this text

Settings (environment variables):
${settingsHelp()}
`;

async function withStore<T>(fn: (store: ReturnType<typeof openStore>) => Promise<T>, config = loadConfig()): Promise<T> {
  const store = openStore(config.database, config.databaseLimits);
  try {
    await store.migrate(listIndexes());
    return await fn(store);
  } finally {
    await store.close();
  }
}

/**
 * serve and migrate read their settings from the environment only: an
 * argument such as `--port 4000` would otherwise be ignored without a word.
 */
function noArguments(command: string, rest: string[]): void {
  if (rest.length > 0) {
    throw new UsageError(`${command} takes no arguments (got "${rest[0]}"); its settings come from environment variables, e.g. PORT=4000 lyceum ${command}; run "lyceum help"`);
  }
}

// Each command's module is imported when that command runs: `serve` (the start
// that is timed) loads the server and nothing of the other commands.
async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve': {
      noArguments(command, rest);
      const config = loadConfig();
      const { serveCommand } = await import('./serve.ts');
      return serveCommand(config);
    }
    case 'migrate':
      noArguments(command, rest);
      await withStore(async () => undefined);
      console.log('migrations applied');
      return;
    case 'users': {
      const { usersCommand } = await import('./users.ts');
      return withStore((store) => usersCommand(store, rest));
    }
    case 'clients': {
      const config = loadConfig();
      const { clientsCommand } = await import('./clients.ts');
      return withStore((store) => clientsCommand(store, config, rest), config);
    }
    case 'keys': {
      const config = loadConfig();
      const { keysCommand } = await import('./keys.ts');
      return withStore((store) => keysCommand(store, config, rest), config);
    }
    case 'analytics': {
      const { analyticsCommand } = await import('./analytics.ts');
      return withStore((store) => analyticsCommand(store, rest));
    }
    case 'seed': {
      const { seedCommand } = await import('./seed.ts');
      return withStore(seedCommand(rest));
    }
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(HELP);
      return;
    default:
      throw new UsageError(`unknown command "${command}"; run "lyceum help"`);
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  const known = err instanceof UsageError || err instanceof ConfigError || err instanceof DuplicateError;
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`lyceum: ${known ? message : `failed: ${message.split('\n')[0]}`}\n`);
  process.exit(err instanceof UsageError ? 2 : 1);
});
