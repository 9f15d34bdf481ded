import { createHmac, hkdfSync } from 'node:crypto';
import type { Config } from '../config/index.ts';
import { resolveKeysSecret } from '../keys/keys-secret.ts';

/** A person as an MCP answer shows them while learners are pseudonymized. */
export interface Pseudonym {
  name: string;
  email: string;
}

/** What a withheld free-text value (a student's notes, a form answer) reads as. */
export const WITHHELD = '[withheld]';

/** How many bytes of the HMAC a pseudonym shows: 40 bits, as 10 hex digits. */
const CODE_BYTES = 5;

/**
 * Stable pseudonyms for learners, the same on every instance and in every
 * call: an HMAC-SHA256 of the person's id, keyed by a key of its own derived
 * from KEYS_SECRET (HKDF, RFC 5869), so without the server's secret a
 * pseudonym cannot be traced back to an id, and an id cannot be turned into
 * its pseudonym. The addresses use the `.invalid` top-level domain, which
 * RFC 2606 §2 reserves for names that are "obviously invalid": a pseudonym
 * can never be mailed.
 */
export class Pseudonyms {
  constructor(private readonly key: Buffer) {}

  /** A student, by their record's id. */
  student(id: string): Pseudonym {
    const code = this.code(`student:${id}`);
    return { name: `Student ${code}`, email: `${code.toLowerCase()}@students.invalid` };
  }

  /** Someone known only by an email address (an event attendee without a student record). */
  guest(email: string): Pseudonym {
    const code = this.code(`email:${email.trim().toLowerCase()}`);
    return { name: `Guest ${code}`, email: `${code.toLowerCase()}@guests.invalid` };
  }

  private code(subject: string): string {
    return createHmac('sha256', this.key).update(subject).digest().subarray(0, CODE_BYTES).toString('hex').toUpperCase();
  }
}

/** A value an MCP answer shows in place of learner data, never a real one. */
export function isPseudonymValue(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  return value === WITHHELD || /^(Student|Guest) [0-9A-F]{10}$/.test(value) || /^[0-9a-f]{10}@(students|guests)\.invalid$/i.test(value);
}

const derived = new WeakMap<Config, Pseudonyms>();

/** The pseudonyms of this server's secret, derived once per configuration. */
export function pseudonymsFor(config: Pick<Config, 'keysSecret' | 'database'>): Pseudonyms {
  let p = derived.get(config as Config);
  if (!p) {
    p = new Pseudonyms(Buffer.from(hkdfSync('sha256', resolveKeysSecret(config), 'lyceum', 'mcp-student-pseudonyms', 32)));
    derived.set(config as Config, p);
  }
  return p;
}
