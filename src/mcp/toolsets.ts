import type { AreaName } from '../platform/areas.ts';

/**
 * The toolsets /mcp lists tools by. A caller's list holds the tools of the
 * toolsets it chose (the X-MCP-Toolsets header) or, without a choice, of its
 * defaults, and of those only the ones its token's scopes let it call. A
 * toolset also names the areas the record tools (list_records, get_record,
 * create_record, ...) reach through it. Every tool stays callable whatever
 * the choice: a toolset only decides what is listed.
 */
export interface Toolset {
  description: string;
  /** The areas whose records the generic record tools reach through this toolset. */
  areas: readonly AreaName[];
  /** Listed without a choice: to every caller, to callers with a token, or to staff (a token with any area scope). */
  byDefault: 'everyone' | 'signed-in' | 'staff' | false;
}

export const TOOLSETS = {
  catalog: {
    description: 'What anyone may read: the school, its published courses with their curriculum, lecturers, plans, products, events, posts and pages.',
    areas: ['courses', 'lecturers', 'membership_plans', 'digital_products', 'events', 'posts', 'pages'],
    byDefault: 'everyone',
  },
  learner: {
    description: "The signed-in person's own account: enrollments, what is left to learn, marking lessons done, orders and subscriptions.",
    areas: [],
    byDefault: 'signed-in',
  },
  courses: {
    description: 'Building courses: a course with its sections and lessons in one call, reordering, publishing, lecturers.',
    areas: ['courses', 'sections', 'lessons', 'lecturers'],
    byDefault: 'staff',
  },
  students: {
    description: "Students and enrollments: enrolling by email, a course's progress, marking lessons for a student.",
    areas: ['students', 'enrollments'],
    byDefault: 'staff',
  },
  commerce: {
    description: 'Orders, coupons, membership plans, subscriptions and digital products.',
    areas: ['orders', 'coupons', 'membership_plans', 'subscriptions', 'digital_products'],
    byDefault: 'staff',
  },
  community: {
    description: 'Events and their attendees, posts, comments, forms and what was submitted.',
    areas: ['events', 'event_attendees', 'posts', 'comments', 'forms', 'form_submissions'],
    byDefault: 'staff',
  },
  analytics: {
    description: 'Figures: enrollments, revenue and activity over time, and a summary of the school.',
    areas: [],
    byDefault: 'staff',
  },
  site: {
    description: 'Running the site: school settings, appearance, pages, the team, webhooks, stored files and the activity log.',
    areas: ['pages', 'members'],
    byDefault: false,
  },
} as const satisfies Record<string, Toolset>;

export type ToolsetName = keyof typeof TOOLSETS;
export const TOOLSET_NAMES = Object.keys(TOOLSETS) as ToolsetName[];

/** The request headers that choose a list (GitHub's MCP server reads the same two). */
export const TOOLSETS_HEADER = 'X-MCP-Toolsets';
export const READONLY_HEADER = 'X-MCP-Readonly';

export type ToolsetChoice = { ok: true; toolsets: ToolsetName[] | 'default'; readOnly: boolean } | { ok: false; message: string };

/**
 * The toolsets a request chose: a comma-separated list of names, or `all`.
 * No header (or an empty one) is the caller's defaults. An unknown name is
 * refused rather than ignored, so a typo does not silently shrink a list.
 */
export function parseToolsetChoice(toolsetsHeader: string | string[] | undefined, readOnlyHeader: string | string[] | undefined): ToolsetChoice {
  const raw = Array.isArray(toolsetsHeader) ? toolsetsHeader.join(',') : (toolsetsHeader ?? '');
  const ro = (Array.isArray(readOnlyHeader) ? readOnlyHeader.join(',') : (readOnlyHeader ?? '')).trim().toLowerCase();
  if (ro !== '' && ro !== 'true' && ro !== 'false' && ro !== '1' && ro !== '0') return { ok: false, message: `${READONLY_HEADER} must be true or false, not "${ro.slice(0, 20)}"` };
  const readOnly = ro === 'true' || ro === '1';
  const names = raw
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  // No name at all (an empty header, or commas only) chooses nothing: the defaults.
  if (names.length === 0) return { ok: true, toolsets: 'default', readOnly };
  if (names.includes('all')) return { ok: true, toolsets: [...TOOLSET_NAMES], readOnly };
  const unknown = names.filter((n) => !(TOOLSET_NAMES as string[]).includes(n));
  if (unknown.length)
    return { ok: false, message: `Unknown toolset ${unknown.map((n) => `"${n.slice(0, 30)}"`).join(', ')} in ${TOOLSETS_HEADER}; the toolsets are ${TOOLSET_NAMES.join(', ')}, or all` };
  return { ok: true, toolsets: TOOLSET_NAMES.filter((n) => names.includes(n)), readOnly };
}

/** The toolsets a caller gets without choosing: the catalog; with a token its own account; staff their daily work. */
export function defaultToolsets(anonymous: boolean, staff: boolean): ToolsetName[] {
  return TOOLSET_NAMES.filter((name) => {
    const when: Toolset['byDefault'] = TOOLSETS[name].byDefault;
    return when === 'everyone' || (when === 'signed-in' && !anonymous) || (when === 'staff' && staff);
  });
}
