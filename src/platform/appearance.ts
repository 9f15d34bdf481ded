import { OTHER_RECORDS } from '../activity/events.ts';
import { saveSettingsDocument } from './settings-document.ts';
import type { Deps } from '../deps.ts';
import { PlatformError } from './errors.ts';
import { API_PREFIX } from './routes/paths.ts';

/** SettingsStore key of the school's appearance document. */
export const APPEARANCE_SETTINGS_KEY = 'appearance';

export const THEMES = ['light', 'dark', 'auto'] as const;

export interface Appearance {
  theme: (typeof THEMES)[number];
  primary_color: string;
  accent_color: string;
  /** An external https logo; exclusive with logo_file_id. */
  logo_url: string | null;
  /** An uploaded image (POST /api/v1/storage); exclusive with logo_url. */
  logo_file_id: string | null;
  updated_at: string | null;
}

export const APPEARANCE_DEFAULTS: Appearance = {
  theme: 'auto',
  primary_color: '#1D4ED8',
  accent_color: '#F59E0B',
  logo_url: null,
  logo_file_id: null,
  updated_at: null,
};

export type AppearancePatch = Partial<Omit<Appearance, 'updated_at'>>;

/** Path of the public logo download, served when logo_file_id is set. */
export const LOGO_PATH = `${API_PREFIX}/appearance/logo`;

/** The school's theme, colours and logo: one SettingsStore document over defaults. All of it is public. */
export class AppearanceService {
  constructor(private readonly deps: Deps) {}

  async read(): Promise<Appearance> {
    const stored = (await this.deps.store.settings.get(APPEARANCE_SETTINGS_KEY)) ?? {};
    const out: Record<string, unknown> = { ...APPEARANCE_DEFAULTS };
    for (const key of Object.keys(APPEARANCE_DEFAULTS)) if (key in stored) out[key] = stored[key];
    return out as unknown as Appearance;
  }

  /** The stored settings plus `effective_logo_url`: what a page should show as the logo, or null. */
  async view(): Promise<Appearance & { effective_logo_url: string | null }> {
    return this.withEffectiveLogo(await this.read());
  }

  /** Applies a validated patch; with dryRun it is checked the same way and the result answered, not stored. */
  async update(patch: AppearancePatch, opts: { dryRun?: boolean } = {}): Promise<Appearance & { effective_logo_url: string | null }> {
    const changes = Object.fromEntries(Object.entries(patch).filter(([k, v]) => k in APPEARANCE_DEFAULTS && k !== 'updated_at' && v !== undefined)) as AppearancePatch;
    if (Object.keys(changes).length === 0) throw new PlatformError('invalid_request', 'The body names no appearance setting to change');
    // One logo source at a time: setting either clears the other.
    if (changes.logo_url && changes.logo_file_id) throw new PlatformError('invalid_request', 'Send logo_url or logo_file_id, not both');
    if (changes.logo_url) changes.logo_file_id = null;
    if (changes.logo_file_id) {
      await this.checkLogoFile(changes.logo_file_id);
      changes.logo_url = null;
    }
    if (changes.primary_color) changes.primary_color = changes.primary_color.toUpperCase();
    if (changes.accent_color) changes.accent_color = changes.accent_color.toUpperCase();
    const now = this.deps.now();
    const next: Appearance = { ...(await this.read()), ...changes, updated_at: new Date(now).toISOString() };
    if (!opts.dryRun) await saveSettingsDocument(this.deps, APPEARANCE_SETTINGS_KEY, OTHER_RECORDS.appearance, next, now, Object.keys(changes));
    return this.withEffectiveLogo(next);
  }

  /** "a logo_file_id that must exist in FileStore", and be an image a page can show. */
  private async checkLogoFile(id: string): Promise<void> {
    const file = await this.deps.store.files.find(id);
    if (!file) throw new PlatformError('invalid_request', `logo_file_id: no file with id ${id}`);
    if (!file.contentType.startsWith('image/')) throw new PlatformError('invalid_request', `logo_file_id: file ${id} is ${file.contentType}, not an image`);
  }

  private withEffectiveLogo(a: Appearance): Appearance & { effective_logo_url: string | null } {
    const effective = a.logo_file_id ? this.deps.config.issuer + LOGO_PATH : a.logo_url;
    return { ...a, effective_logo_url: effective ?? null };
  }
}
