import { OTHER_RECORDS } from '../activity/events.ts';
import { saveSettingsDocument } from './settings-document.ts';
import type { Deps } from '../deps.ts';
import { PlatformError } from './errors.ts';

/** SettingsStore key of the school's settings document. */
export const SCHOOL_SETTINGS_KEY = 'school';

export interface SchoolSettings {
  name: string;
  description: string;
  locale: string;
  currency: string;
  timezone: string;
  website: string | null;
  contact_email: string | null;
  contact_phone: string | null;
  legal_name: string | null;
  address: string | null;
  /**
   * MCP answers show students by stable pseudonyms instead of names and
   * emails, for every agent, and a call cannot turn them off (src/mcp/pseudonyms.ts).
   */
  mcp_student_pseudonyms: boolean;
  /** null until the settings are first changed. */
  updated_at: string | null;
}

/** What a school that never changed its settings shows. */
export const SCHOOL_DEFAULTS: SchoolSettings = {
  name: 'Lyceum School',
  description: '',
  locale: 'en',
  currency: 'USD',
  timezone: 'UTC',
  website: null,
  contact_email: null,
  contact_phone: null,
  legal_name: null,
  address: null,
  mcp_student_pseudonyms: false,
  updated_at: null,
};

/** Shown to anonymous callers and to tokens without school:read. */
export const PUBLIC_SCHOOL_FIELDS = ['name', 'description', 'locale', 'currency', 'timezone', 'website'] as const;

/** The full settings with school:read, else the public fields only. */
export function projectSchool(settings: SchoolSettings, full: boolean): PublicSchool & Partial<SchoolSettings> {
  if (full) return settings;
  // Object.fromEntries cannot type the keys it is given; they are PUBLIC_SCHOOL_FIELDS.
  return Object.fromEntries(PUBLIC_SCHOOL_FIELDS.map((k) => [k, settings[k]])) as PublicSchool;
}

/** What everyone may read of the school. */
export type PublicSchool = Pick<SchoolSettings, (typeof PUBLIC_SCHOOL_FIELDS)[number]>;

export type SchoolPatch = Partial<Omit<SchoolSettings, 'updated_at'>>;

/**
 * Checks JSON Schema cannot express: the locale must be a well-formed BCP 47
 * tag (stored in its canonical case, "en-us" → "en-US") and the time zone one
 * the runtime's IANA database knows.
 */
function checkPatch(patch: SchoolPatch): SchoolPatch {
  const out = { ...patch };
  if (patch.locale !== undefined) {
    try {
      out.locale = Intl.getCanonicalLocales(patch.locale)[0] ?? patch.locale;
    } catch {
      throw new PlatformError('invalid_request', `locale: "${patch.locale}" is not a BCP 47 language tag`);
    }
  }
  if (patch.timezone !== undefined) {
    try {
      new Intl.DateTimeFormat('en', { timeZone: patch.timezone });
    } catch {
      throw new PlatformError('invalid_request', `timezone: "${patch.timezone}" is not an IANA time zone`);
    }
  }
  return out;
}

/** The school's settings: one document in the SettingsStore, over documented defaults. */
export class SchoolSettingsService {
  constructor(private readonly deps: Deps) {}

  async read(): Promise<SchoolSettings> {
    const stored = (await this.deps.store.settings.get(SCHOOL_SETTINGS_KEY)) ?? {};
    const out: Record<string, unknown> = { ...SCHOOL_DEFAULTS };
    // Only known keys: a document written by another version keeps no stray fields in answers.
    for (const key of Object.keys(SCHOOL_DEFAULTS)) if (key in stored) out[key] = stored[key];
    return out as unknown as SchoolSettings;
  }

  async view(full: boolean): Promise<PublicSchool & Partial<SchoolSettings>> {
    return projectSchool(await this.read(), full);
  }

  /**
   * Applies a validated patch; null clears an optional field. Last write wins between concurrent patches.
   * With dryRun the patch is checked the same way and the result answered, not stored.
   */
  async update(patch: SchoolPatch, opts: { dryRun?: boolean } = {}): Promise<SchoolSettings> {
    const changes = Object.fromEntries(Object.entries(patch).filter(([k, v]) => k in SCHOOL_DEFAULTS && k !== 'updated_at' && v !== undefined));
    if (Object.keys(changes).length === 0) throw new PlatformError('invalid_request', 'The body names no setting to change');
    const now = this.deps.now();
    const next = { ...(await this.read()), ...checkPatch(changes), updated_at: new Date(now).toISOString() };
    if (!opts.dryRun) await saveSettingsDocument(this.deps, SCHOOL_SETTINGS_KEY, OTHER_RECORDS.school, next, now, Object.keys(changes));
    return next;
  }
}
