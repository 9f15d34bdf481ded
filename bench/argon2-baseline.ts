/**
 * What argon2id verification alone allows on this machine: @node-rs/argon2
 * verify of a hash made by src/users/passwords.ts (same parameters), in a
 * loop for ARGON2_SECONDS, ARGON2_CONCURRENCY verifications in flight (the server's libuv
 * pool runs 4 at once). Prints {"perSecond": n} as JSON.
 */
import { verify } from '@node-rs/argon2';
import { hashPassword } from '../src/users/passwords.ts';

const seconds = Number(process.env.ARGON2_SECONDS ?? 5);
const concurrency = Number(process.env.ARGON2_CONCURRENCY ?? 1);
const stored = await hashPassword('bench-password-0123');
await verify(stored, 'bench-password-0123');

let done = 0;
const started = performance.now();
const deadline = started + seconds * 1000;
async function worker(): Promise<void> {
  while (performance.now() < deadline) {
    if (!(await verify(stored, 'bench-password-0123'))) throw new Error('verification failed');
    done++;
  }
}
await Promise.all(Array.from({ length: concurrency }, worker));
process.stdout.write(`${JSON.stringify({ perSecond: done / ((performance.now() - started) / 1000), concurrency })}\n`);
