import { randomInt } from 'node:crypto';
import { AUTHORIZATION_SERVER } from '../../util/authorization-server.ts';
import { sha256 } from '../issued-tokens/secrets.ts';

const { userCodeAlphabet: ALPHABET, userCodeLength: LENGTH } = AUTHORIZATION_SERVER.deviceFlow;

/**
 * A new user code, as people read it: `BDFG-HJKL`. RFC 8628 §6.1 asks for a
 * case-insensitive code of characters that are easy to tell apart, and allows
 * a dash for readability.
 */
export function newUserCode(): string {
  const chars = Array.from({ length: LENGTH }, () => ALPHABET[randomInt(ALPHABET.length)]!);
  return displayUserCode(chars.join(''));
}

/**
 * A typed code in its one stored form (upper case, no separator), or undefined
 * when it cannot be a user code at all. RFC 8628 §6.1: the server strips the
 * dashes it added for readability, so typing them is optional; case never matters.
 */
export function normaliseUserCode(typed: string): string | undefined {
  if (typed.length > 40) return undefined;
  const code = typed.toUpperCase().replace(/[\s\-.]/g, '');
  if (code.length !== LENGTH || [...code].some((c) => !ALPHABET.includes(c))) return undefined;
  return code;
}

/** A code (normalised or not) as people read it, with its separator. */
export function displayUserCode(code: string): string {
  const plain = code.replace('-', '');
  return `${plain.slice(0, LENGTH / 2)}-${plain.slice(LENGTH / 2)}`;
}

/** The stored form of a normalised user code: its SHA-256, like every other credential. */
export const userCodeHash = (normalised: string): string => sha256(`user-code:${normalised}`);
