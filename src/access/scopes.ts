import { boundedCache } from '../util/bounded-cache.ts';

/**
 * The 38 scopes of Lyceum's API, in their published order, with the plain words the consent page shows. Discovery, consent,
 * auth.md and the routes all read this one registry.
 */
export const SCOPES = [
  ['openid', 'OpenID Connect authentication', 'Confirm who you are (sign you in)'],
  ['profile', 'Basic profile information', 'See your name and profile details'],
  ['email', 'Email address', 'See your email address'],
  ['courses:read', 'Read courses', 'See courses, including drafts'],
  ['courses:write', 'Write courses', 'Create, change and delete courses'],
  ['students:read', 'Read students', 'See students, their enrollments and progress'],
  ['students:write', 'Write students', 'Add, change and remove students and enrollments'],
  ['members:read', 'Read members', "See the school's team members"],
  ['members:write', 'Write members', "Add, change and remove the school's team members"],
  ['analytics:read', 'Read analytics', 'See enrollment, revenue and activity figures'],
  ['curriculum:read', 'Read curriculum', 'See the sections and lessons of courses'],
  ['curriculum:write', 'Write curriculum', 'Create, change and reorder sections and lessons'],
  ['orders:read', 'Read orders', 'See orders and what was paid'],
  ['school:read', 'Read school', "See the school's settings and its activity log"],
  ['school:write', 'Write school', "Change the school's name, contact and settings"],
  ['appearance:read', 'Read appearance', "See the school's theme, colours and logo"],
  ['appearance:write', 'Write appearance', "Change the school's theme, colours and logo"],
  ['events:read', 'Read events', 'See events and their attendees'],
  ['events:write', 'Write events', 'Create, change and cancel events'],
  ['membership_plans:read', 'Read membership plans', 'See membership plans'],
  ['membership_plans:write', 'Write membership plans', 'Create, change and retire membership plans'],
  ['coupons:read', 'Read coupons', 'See coupons and their codes'],
  ['coupons:write', 'Write coupons', 'Create, change and delete coupons'],
  ['posts:read', 'Read posts', 'See posts, including drafts'],
  ['posts:write', 'Write posts', 'Write, publish and delete posts'],
  ['subscriptions:read', 'Read subscriptions', 'See who subscribes to which plan'],
  ['subscriptions:write', 'Write subscriptions', 'Start, change and cancel subscriptions'],
  ['digital_products:read', 'Read digital products', 'See digital products'],
  ['digital_products:write', 'Write digital products', 'Create, change and delete digital products'],
  ['comments:read', 'Read comments', 'See comments left on courses and posts'],
  ['lecturers:read', 'Read lecturers', 'See lecturers'],
  ['lecturers:write', 'Write lecturers', 'Add, change and remove lecturers'],
  ['storage:write', 'Write storage', 'Upload and delete files'],
  ['forms:read', 'Read forms', 'See forms and what people submitted'],
  ['pages:read', 'Read pages', 'See pages, including drafts'],
  ['pages:write', 'Write pages', 'Create, change and delete pages'],
  ['account:read', 'Read account', 'See your own account'],
  ['account:write', 'Write account', 'Change your own account'],
] as const satisfies readonly (readonly [string, string, string])[];

export type Scope = (typeof SCOPES)[number][0];

export const SCOPE_NAMES: readonly Scope[] = SCOPES.map(([name]) => name);

const NAME_SET = new Set<string>(SCOPE_NAMES);
const PLAIN = new Map<string, string>(SCOPES.map(([name, , plain]) => [name, plain]));

export function isScope(value: string): value is Scope {
  return NAME_SET.has(value);
}

export const describeScope = (scope: Scope): string => PLAIN.get(scope) ?? scope;

/**
 * Splits a scope parameter. RFC 6749 §3.3: "The value of the scope parameter is
 * expressed as a list of space-delimited, case-sensitive strings."
 * Returns the unknown entries separately; duplicates are dropped, order kept.
 */
export function parseScope(raw: string): { scopes: Scope[]; unknown: string[] } {
  const scopes: Scope[] = [];
  const unknown: string[] = [];
  for (const token of raw.split(' ')) {
    if (token === '') continue;
    if (isScope(token)) {
      if (!scopes.includes(token)) scopes.push(token);
    } else unknown.push(token);
  }
  return { scopes, unknown };
}

/** Distinct stored scope strings remembered by grantedScopes; a grant's string repeats on every request. */
const GRANTED_SETS_KEPT = 256;
const grantedSets = boundedCache<string, ReadonlySet<Scope>>(GRANTED_SETS_KEPT);
const toScopeSet = (raw: string): ReadonlySet<Scope> => new Set(parseScope(raw).scopes);

/**
 * The known scopes of a stored scope string (a token's or a grant's), as a set.
 * Each bearer request asks this of its token; the answer for a string never
 * changes, so it is kept (a bounded number of strings).
 */
export function grantedScopes(raw: string): ReadonlySet<Scope> {
  return grantedSets(raw, toScopeSet);
}

/** Scopes in registry order, space-joined: the canonical form stored and returned. */
export function formatScope(scopes: Iterable<string>): string {
  const set = new Set(scopes);
  return SCOPE_NAMES.filter((s) => set.has(s)).join(' ');
}
