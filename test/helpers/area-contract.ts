/**
 * The record areas as a client reads the contract, written by hand: each
 * area's path, the scope that reads it, the scope that writes it, and what
 * an anonymous caller (or a token without the read scope) may see of it.
 * Tests take their expectations from here, never from the product's own
 * AREA_LIST: a wrong declaration there then fails a test instead of
 * silently moving the expectation with it.
 */

export interface AreaContract {
  path: string;
  read: string;
  /** Absent: the area is read-only over the API. */
  write?: string;
  /** Absent: no public view (anonymous callers get 401, tokens without `read` 403). */
  publicView?: {
    /** The only fields the public view holds (besides id, created_at, updated_at). */
    fields: string[];
    /** Only records with status "published" are shown. */
    publishedOnly: boolean;
  };
}

const published = (...fields: string[]) => ({ fields, publishedOnly: true });

export const AREA_CONTRACT: Record<string, AreaContract> = {
  courses: {
    path: '/courses',
    read: 'courses:read',
    write: 'courses:write',
    publicView: published('title', 'slug', 'summary', 'description', 'level', 'language', 'price_cents', 'lecturer_ids', 'status'),
  },
  sections: { path: '/curriculum/sections', read: 'curriculum:read', write: 'curriculum:write' },
  lessons: { path: '/curriculum/lessons', read: 'curriculum:read', write: 'curriculum:write' },
  lecturers: {
    path: '/lecturers',
    read: 'lecturers:read',
    write: 'lecturers:write',
    publicView: { fields: ['name', 'headline', 'bio', 'expertise', 'avatar_url'], publishedOnly: false },
  },
  students: { path: '/students', read: 'students:read', write: 'students:write' },
  enrollments: { path: '/enrollments', read: 'students:read', write: 'students:write' },
  members: { path: '/members', read: 'members:read', write: 'members:write' },
  membership_plans: {
    path: '/membership-plans',
    read: 'membership_plans:read',
    write: 'membership_plans:write',
    publicView: published('name', 'description', 'price_cents', 'interval', 'benefits', 'status'),
  },
  subscriptions: { path: '/subscriptions', read: 'subscriptions:read', write: 'subscriptions:write' },
  digital_products: {
    path: '/digital-products',
    read: 'digital_products:read',
    write: 'digital_products:write',
    publicView: published('name', 'description', 'format', 'price_cents', 'status'),
  },
  coupons: { path: '/coupons', read: 'coupons:read', write: 'coupons:write' },
  orders: { path: '/orders', read: 'orders:read' },
  events: {
    path: '/events',
    read: 'events:read',
    write: 'events:write',
    publicView: published('title', 'description', 'starts_at', 'ends_at', 'location', 'capacity', 'price_cents', 'status'),
  },
  event_attendees: { path: '/event-attendees', read: 'events:read', write: 'events:write' },
  posts: {
    path: '/posts',
    read: 'posts:read',
    write: 'posts:write',
    publicView: published('title', 'slug', 'excerpt', 'body', 'author_name', 'published_at', 'status'),
  },
  comments: { path: '/comments', read: 'comments:read' },
  forms: { path: '/forms', read: 'forms:read' },
  form_submissions: { path: '/form-submissions', read: 'forms:read' },
  pages: { path: '/pages', read: 'pages:read', write: 'pages:write', publicView: published('title', 'slug', 'body', 'status') },
};

/** The contract of an area; a test of an area nobody stated by hand fails here. */
export function contractOf(name: string): AreaContract {
  const c = AREA_CONTRACT[name];
  if (!c) throw new Error(`area ${name} is not in test/helpers/area-contract.ts: state its scopes and public view there`);
  return c;
}
