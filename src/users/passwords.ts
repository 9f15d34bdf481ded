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
  // Stryker disable next-line BlockStatement: without it verify() throws on the missing hash and the catch below still answers false; only the timing differs
  if (!stored) {
    // Stryker disable next-line StringLiteral: any dummy password costs the same argon2 work
    dummy ??= hashPassword('lyceum-dummy-password');
    // Stryker disable next-line ArrowFunction,BooleanLiteral: the outcome of the dummy check is ignored; only its cost matters
    await verify(await dummy, password).catch(() => false);
    // Stryker disable next-line BooleanLiteral: sign-in refuses an unknown email by the missing user too (`!user || !ok`)
    return false;
  }
  // A stored hash argon2 cannot read (another algorithm, a damaged row) matches no password.
  // Stryker disable next-line ArrowFunction: a catch answering undefined is refused by both callers (sign-in, current_password) as false is
  return verify(stored, password).catch(() => false);
}
