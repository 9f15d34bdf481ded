/**
 * Whether an app's own name claims the school's word for it. Pages show
 * beside a name who vouches for the app ("Registered by the school", or that
 * it registered itself); an app that names itself "… (Registered by the
 * school)" would put that claim where the school's own word stands. Only the
 * school's own clients (`lyceum clients add`) may use those words.
 */
export function claimsSchoolRegistration(name: string): boolean {
  return /registered\s+by\s+(the\s+|this\s+)?school/i.test(name.normalize('NFKC'));
}
