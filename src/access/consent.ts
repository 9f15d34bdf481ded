import type { Scope } from './scopes.ts';

/**
 * How long a person lets an app act for them, as the consent page and
 * /account/apps offer it. `seconds: null` lasts until the person disconnects
 * the app. The default is 30 days: an agent forgotten on some machine stops
 * by itself within a month, as expiring access tokens do elsewhere, while an
 * app in daily use asks again only monthly; whoever wants longer picks it.
 */
export const CONSENT_DURATIONS = [
  { id: '1h', seconds: 3600, label: 'For an hour', prose: 'an hour' },
  { id: '1d', seconds: 86_400, label: 'For a day', prose: 'a day' },
  { id: '30d', seconds: 30 * 86_400, label: 'For 30 days', prose: '30 days' },
  { id: 'forever', seconds: null, label: 'Until I disconnect it', prose: 'until they disconnect the app' },
] as const;

export type ConsentDurationId = (typeof CONSENT_DURATIONS)[number]['id'];
export const DEFAULT_CONSENT_DURATION: ConsentDurationId = '30d';

/** Scopes that are always part of a grant: the sign-in itself. */
export const ALWAYS_GRANTED: readonly Scope[] = ['openid'];

/**
 * Scopes the "read only" choice keeps: every `*:read` scope and the
 * identity scopes, which let an app see and never change.
 */
export const isReadOnlyScope = (s: Scope): boolean => s.endsWith(':read') || s === 'openid' || s === 'profile' || s === 'email';

/** The form field that carries one scope's checkbox on the consent page. */
export const scopeField = (s: Scope): string => `grant_${s}`;

/**
 * What the person chose on the consent page: of the scopes their role can
 * grant, those whose box was ticked (ALWAYS_GRANTED ones always), or the
 * read-only ones. A box left unticked sends nothing, so a form without any
 * box grants only what is always granted.
 */
export function chosenScopes(params: Record<string, unknown>, grantable: readonly Scope[], readOnly: boolean): Scope[] {
  return grantable.filter((s) => ALWAYS_GRANTED.includes(s) || (readOnly ? isReadOnlyScope(s) : params[scopeField(s)] !== undefined));
}

/** When the chosen consent ends: null for "until I disconnect it"; the default when the form sent none or an unknown one. */
export function consentEnd(params: Record<string, unknown>, now: number): number | null {
  const chosen = CONSENT_DURATIONS.find((d) => d.id === params.duration) ?? CONSENT_DURATIONS.find((d) => d.id === DEFAULT_CONSENT_DURATION)!;
  return chosen.seconds === null ? null : now + chosen.seconds * 1000;
}
