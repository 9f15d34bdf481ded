/** something@domain.tld with no white space: the shape of an address Lyceum accepts for an account. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * At most 320 characters: RFC 5321 §4.5.3.1.1 "The maximum total length of a user name or other
 * local-part is 64 octets", §4.5.3.1.2 "The maximum total length of a domain name or number is
 * 255 octets", and the @ between them.
 */
const MAX_LENGTH = 64 + 1 + 255;

export function isEmailAddress(value: string): boolean {
  return EMAIL.test(value) && value.length <= MAX_LENGTH;
}
