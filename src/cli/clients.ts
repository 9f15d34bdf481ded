import type { Client, Store } from '../store/types.ts';
import { UsageError } from './args.ts';

/** When the client last obtained a token (to the minute), or "never". */
const lastUsed = (c: Client): string => (c.lastUsedAt ? new Date(c.lastUsedAt).toISOString() : 'never');

export async function clientsCommand(store: Store, args: string[]): Promise<void> {
  const [sub, id] = args;
  if (sub === 'list') {
    const clients = await store.clients.list();
    if (clients.length === 0) return console.log('no clients');
    console.log(`${'CLIENT_ID'.padEnd(clients[0]!.id.length)}  ${'AUTH_METHOD'.padEnd(18)}  ${'REGISTERED'.padEnd(24)}  ${'LAST_USED'.padEnd(24)}  NAME`);
    for (const c of clients) {
      const when = new Date(c.createdAt).toISOString();
      console.log(`${c.id}  ${c.metadata.token_endpoint_auth_method.padEnd(18)}  ${when}  ${lastUsed(c).padEnd(24)}  ${c.metadata.client_name ?? '(unnamed)'}`);
    }
    return;
  }
  if (sub === 'show') {
    if (!id) throw new UsageError('usage: lyceum clients show CLIENT_ID');
    const c = await store.clients.find(id);
    if (!c) throw new UsageError(`no client ${id}`);
    console.log(JSON.stringify({ client_id: c.id, created_at: new Date(c.createdAt).toISOString(), last_used_at: c.lastUsedAt ? new Date(c.lastUsedAt).toISOString() : null, ...c.metadata }, null, 2));
    return;
  }
  if (sub === 'delete') {
    if (!id) throw new UsageError('usage: lyceum clients delete CLIENT_ID');
    if (!(await store.clients.delete(id))) throw new UsageError(`no client ${id}`);
    console.log(`deleted ${id} with its codes, tokens and grants`);
    return;
  }
  throw new UsageError('usage: lyceum clients list | show CLIENT_ID | delete CLIENT_ID');
}
