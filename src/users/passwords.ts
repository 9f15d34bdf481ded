import { Algorithm, hash, verify } from '@node-rs/argon2';

/** argon2id with the OWASP-recommended floor: 19 MiB, 2 passes, 1 lane. */
const OPTIONS = { algorithm: Algorithm.Argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const MIN_PASSWORD_LENGTH = 8;
export const MAX_PASSWORD_LENGTH = 1024;

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

let dummy: Promise<string> | undefined;

/**
 * Verifies a password against a stored hash. With no stored hash (unknown
 * email) it still does the work against a dummy, so timing does not reveal
 * which emails have accounts.
 */
export async function verifyPassword(stored: string | undefined, password: string): Promise<boolean> {
  if (password.length > MAX_PASSWORD_LENGTH) return false;
  if (!stored) {
    dummy ??= hashPassword('lyceum-dummy-password');
    await verify(await dummy, password).catch(() => false);
    return false;
  }
  // A stored hash argon2 cannot read (another algorithm, a damaged row) matches no password.
  return verify(stored, password).catch(() => false);
}
