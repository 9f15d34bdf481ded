import type { Deps } from '../deps.ts';
import { SCHOOL_DEFAULTS, SchoolSettingsService } from '../platform/school-settings.ts';

/** What the public documents say about the school, from its settings (defaults when never set). */
export interface SchoolProfile {
  name: string;
  description: string | undefined;
  /** ISO 4217 code, upper case. */
  currency: string;
  /** BCP 47 tag prices are formatted for. */
  locale: string;
}

const text = (v: unknown, max: number): string | undefined => {
  if (typeof v !== 'string') return undefined;
  const t = v.replace(/\s+/g, ' ').trim();
  return t ? t.slice(0, max) : undefined;
};

/** A currency Intl can format; anything else falls back to the default. */
export function usableCurrency(v: unknown): string {
  if (typeof v !== 'string' || !/^[A-Za-z]{3}$/.test(v)) return SCHOOL_DEFAULTS.currency;
  const currency = v.toUpperCase();
  try {
    new Intl.NumberFormat('en', { style: 'currency', currency });
    return currency;
  } catch {
    return SCHOOL_DEFAULTS.currency;
  }
}

function usableLocale(v: unknown): string {
  try {
    return (typeof v === 'string' && Intl.getCanonicalLocales(v)[0]) || SCHOOL_DEFAULTS.locale;
  } catch {
    return SCHOOL_DEFAULTS.locale;
  }
}

export async function schoolProfile(deps: Deps): Promise<SchoolProfile> {
  const s = await new SchoolSettingsService(deps).read();
  return {
    name: text(s.name, 200) ?? SCHOOL_DEFAULTS.name,
    description: text(s.description, 1000),
    currency: usableCurrency(s.currency),
    locale: usableLocale(s.locale),
  };
}
