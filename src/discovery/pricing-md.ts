import type { Deps } from '../deps.ts';
import { AREAS, type AreaDef } from '../platform/areas.ts';
import { listAll } from '../platform/list-all.ts';
import type { RecordService } from '../platform/records.ts';
import { API_PREFIX } from '../platform/routes/paths.ts';
import { bullets, escapeText, table } from './markdown.ts';
import { schoolProfile } from './school.ts';

type Item = Record<string, unknown>;

/**
 * Minor units (cents) → the school currency, formatted by Intl; 0 is "Free".
 * The number of minor digits comes from the currency itself (JPY 0, USD 2, KWD 3).
 */
export function priceFormatter(currency: string, locale: string): (minor: unknown) => string {
  const format = new Intl.NumberFormat(locale, { style: 'currency', currency });
  const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
  return (minor) => {
    const n = Number(minor ?? 0);
    if (!Number.isFinite(n) || n <= 0) return 'Free';
    return format.format(n / 10 ** digits);
  };
}

const str = (v: unknown): string => (typeof v === 'string' ? v : v === null || v === undefined ? '' : String(v));
const lines = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x.trim() !== '') : []);

const INTERVALS: Record<string, string> = { month: 'per month', year: 'per year', one_time: 'one-time payment' };

/** "2030-05-01T17:00:00.000Z" → "2030-05-01 17:00 UTC". */
const utc = (iso: unknown): string => (typeof iso === 'string' && iso.length >= 16 ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : '');

/** /pricing.md: what the school sells, from the live public catalog on every request. */
export async function pricingMarkdown(deps: Deps, records: RecordService): Promise<string> {
  const issuer = deps.config.issuer;
  const school = await schoolProfile(deps);
  const price = priceFormatter(school.currency, school.locale);
  const link = (area: AreaDef, item: Item, label: unknown) => `[${escapeText(str(label)) || 'Untitled'}](${issuer}${API_PREFIX}${area.path}/${encodeURIComponent(str(item.id))})`;
  const none = (what: string) => `No ${what} at the moment.`;

  const [courses, plans, products, events] = await Promise.all([
    listAll(records, AREAS.courses, 'public', {}),
    listAll(records, AREAS.membership_plans, 'public', {}),
    listAll(records, AREAS.digital_products, 'public', {}),
    listAll(records, AREAS.events, 'public', {}),
  ]);

  const out: string[] = [
    `# Pricing: ${escapeText(school.name)}`,
    `> What ${escapeText(school.name)} sells, generated from the live catalog. Prices are in ${school.currency}; "Free" means no charge.`,
    `Generated at ${new Date(deps.now()).toISOString()}. The same records, as JSON, are served anonymously under ${issuer}${API_PREFIX}/ (see ${issuer}/openapi.json).`,
  ];

  out.push('## Courses');
  out.push(
    courses.length === 0
      ? none('published courses')
      : table(
          ['Course', 'Level', 'Language', 'Price'],
          courses.map((c) => [link(AREAS.courses, c, c.title), escapeText(str(c.level)), escapeText(str(c.language)), price(c.price_cents)]),
        ),
  );

  out.push('## Membership plans');
  if (plans.length === 0) out.push(none('published membership plans'));
  for (const p of plans) {
    const amount = price(p.price_cents);
    const interval = amount === 'Free' ? '' : ` ${INTERVALS[str(p.interval)] ?? escapeText(str(p.interval))}`;
    out.push(`### ${escapeText(str(p.name)) || 'Untitled plan'}: ${amount}${interval}`);
    const description = escapeText(str(p.description));
    if (description) out.push(description);
    const benefits = lines(p.benefits);
    if (benefits.length > 0) out.push(bullets(benefits.map(escapeText)));
  }

  out.push('## Digital products');
  out.push(
    products.length === 0
      ? none('published digital products')
      : table(
          ['Product', 'Format', 'Price'],
          products.map((p) => [link(AREAS.digital_products, p, p.name), escapeText(str(p.format)), price(p.price_cents)]),
        ),
  );

  out.push('## Upcoming events');
  out.push(
    events.length === 0
      ? none('upcoming events')
      : table(
          ['Event', 'Starts', 'Location', 'Price'],
          events.map((e) => [link(AREAS.events, e, e.title), utc(e.starts_at), escapeText(str(e.location)), price(e.price_cents)]),
        ),
  );

  return `${out.join('\n\n')}\n`;
}
