/** The browser-only steps around the authorization endpoint: sign-in, the consent decision, sign-out. */
export const WEB_PATHS = {
  signIn: '/oauth/sign-in',
  decision: '/oauth/authorize/decision',
  signOut: '/oauth/sign-out',
} as const;
