import type { Config } from '../config/index.ts';
import { KeyRing } from '../keys/keyring.ts';
import type { Store } from '../store/types.ts';
import { UsageError } from './args.ts';

/** `lyceum keys rotate | list`. Retired keys stay published for an ID-token lifetime. */
export async function keysCommand(store: Store, config: Config, args: string[]): Promise<void> {
  const [sub] = args;
  const ring = await KeyRing.open(store, config);
  if (sub === 'rotate') {
    const kids = await ring.rotate();
    console.log(`new signing keys: ${kids.join(', ')}; previous keys stay published for ${config.idTokenTtl} s`);
    return;
  }
  if (sub === 'list') {
    const keys = await store.signingKeys.listPublished(Date.now() - config.idTokenTtl * 1000);
    for (const k of keys) {
      const state = k.retiredAt === null ? 'active' : `retired ${new Date(k.retiredAt).toISOString()}`;
      console.log(`${k.kid}  ${k.alg}  created ${new Date(k.createdAt).toISOString()}  ${state}`);
    }
    return;
  }
  throw new UsageError('usage: lyceum keys rotate | lyceum keys list');
}
