/**
 * docs/decisions.md names settings with their defaults in words, right
 * after the name: "`WEBHOOK_TIMEOUT_MS` (10 s)", "`MAX_REGISTERED_CLIENTS`
 * (10,000 by default)", "`RATE_LIMIT_UPLOAD_PER_MINUTE`, 30 by default".
 * Each such figure must be the setting's default in config/defaults.ts, so
 * the prose cannot drift from the one declaration.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../../src/config/defaults.ts';

const DECISIONS = readFileSync(new URL('../../docs/decisions.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');

/** A setting's name in backticks, then its figure in parentheses or after a comma with "by default". */
const MENTION = /`([A-Z][A-Z0-9_]{4,})` ?(?:\(([^)]*)\)|, ([^,;.)]+ by default))/g;

const SECONDS_IN = { s: 1, min: 60, h: 3600, day: 86_400 } as const;
const BYTES_IN = { KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3 } as const;

/** One figure in words, in seconds or bytes or as a bare number; undefined when the words hold none. */
function figure(words: string): { seconds: number } | { waits: number[] } | { bytes: number } | { count: number } | { empty: true } | undefined {
  if (/^empty\b/.test(words)) return { empty: true };
  // A list of waits ("10 s, 1 min, 5 min"): each in seconds.
  const waits = /^(\d+ ?(?:s|min|h))(?:, \d+ ?(?:s|min|h))+/.exec(words);
  if (waits) return { waits: waits[0].split(', ').map((w) => (figure(w) as { seconds: number }).seconds) };
  if (/^an? day\b/.test(words)) return { seconds: SECONDS_IN.day };
  const m = /^(\d[\d,]*(?:\.\d+)?)(?: ?(s|min|h|KiB|MiB|GiB)\b)?/.exec(words);
  if (!m) return undefined;
  const n = Number(m[1]!.replaceAll(',', ''));
  const unit = m[2];
  if (unit && unit in SECONDS_IN) return { seconds: n * SECONDS_IN[unit as keyof typeof SECONDS_IN] };
  if (unit && unit in BYTES_IN) return { bytes: n * BYTES_IN[unit as keyof typeof BYTES_IN] };
  return { count: n };
}

/** The setting's default in the same terms as the figure (its name says its unit). */
function defaultAs(name: string, kind: string): unknown {
  const setting = SETTINGS.find((s) => s.name === name);
  if (!setting) return `no setting ${name}`;
  if (typeof setting.default !== 'string') return kind === 'empty' ? true : `${name} has no default value`;
  const value = setting.parse(setting.default);
  if (Array.isArray(value)) return (value as number[]).map((ms) => ms / 1000); // a list of waits in ms
  const n = value as number;
  if (kind === 'seconds') return name.endsWith('_MS') ? n / 1000 : n;
  return n;
}

const mentions = [...DECISIONS.matchAll(MENTION)].flatMap((m) => {
  const words = (m[2] ?? m[3]!).trim();
  const f = figure(words);
  return f ? [{ name: m[1]!, words, figure: f }] : [];
});

describe('docs/decisions.md', () => {
  it('gives figures for the settings it names', () => {
    // The document states at least these in words; fewer means the pattern stopped finding them.
    expect(mentions.length).toBeGreaterThanOrEqual(10);
  });

  it.each(mentions.map((m) => [m.name, m.words, m] as const))('%s: "%s" is its default', (name, _words, m) => {
    const [kind, value] = Object.entries(m.figure)[0]!;
    expect(value).toEqual(defaultAs(name, kind));
  });
});
