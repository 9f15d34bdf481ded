/**
 * The browser-only steps around the authorization endpoint: sign-in, the consent decision, sign-out,
 * and the device page's decision (the page itself is ENDPOINTS.deviceVerification, which devices are sent to).
 */
export const WEB_PATHS = {
  signIn: '/oauth/sign-in',
  decision: '/oauth/authorize/decision',
  signOut: '/oauth/sign-out',
  deviceDecision: '/oauth/device/decision',
} as const;
