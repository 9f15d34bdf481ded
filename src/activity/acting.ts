import { AsyncLocalStorage } from 'node:async_hooks';
import type { ActivityChannel } from './events.ts';

/**
 * The app acting in the current request, and the operation it called: set
 * around a guarded API handler (declare-route.ts) and around an MCP tool
 * (tool-list.ts), read where a service writes. Keeping it out of every
 * service signature lets the record, progress and settings services stay
 * the same for the CLI and the demo seed, which act for nobody and log
 * nothing.
 */
export interface Acting {
  userId: string;
  clientId: string;
  via: Extract<ActivityChannel, 'api' | 'mcp'>;
  operation: string;
}

const current = new AsyncLocalStorage<Acting>();

export const actingAs = <T>(acting: Acting, work: () => T): T => current.run(acting, work);

/** The app acting now, or undefined outside a request made with a token. */
export const currentlyActing = (): Acting | undefined => current.getStore();
