import { z } from 'zod';
import type { Scope } from '../access/scopes.ts';
import type { Fields } from './fields.ts';

/**
 * The platform's record collections, one declaration each. Routes, schemas,
 * /openapi.json, MCP tools and the public catalog are all derived from here.
 */
export interface AreaDef {
  /** Stable key, also the table name. */
  name: string;
  /** Path under /api/v1. */
  path: string;
  /** One record, in plain words. */
  label: string;
  idPrefix: string;
  /** Every area is readable through the API with this scope. */
  readScope: Scope;
  /** Absent: read-only through the API. */
  writeScope?: Scope;
  fields: Fields;
  /**
   * Present when anonymous callers (and tokens without readScope) may list
   * this collection: they see only public fields of rows where `status` is
   * published (when the area has a status) and, with `upcoming`, starts in the future.
   */
  publicRead?: { published?: boolean; upcoming?: string };
  /** Columns whose values must be unique (409 on conflict). */
  unique?: string[];
  /** Default sort column (ascending, ties broken by id). */
  sort?: string;
  /** What happens to records pointing here when one is deleted: [table, column] pairs. */
  onDelete?: { cascade?: [string, string][]; restrict?: [string, string][] };
}

/** The column an area's lists are sorted by, ascending, ties broken by id: its declared sort, else creation time. */
export const sortColumn = (area: AreaDef): string => area.sort ?? 'created_at';

const STATUS = ['draft', 'published', 'archived'] as const;
const status = { type: 'enum', enum: STATUS, description: 'draft, published or archived; only published ones are public', public: true, filter: true, default: 'draft' } as const;
const price = { type: 'integer', description: 'Price in minor units of the school currency (cents)', public: true, min: 0, max: 100_000_000, default: 0 } as const;
const slug = { type: 'string', description: 'URL name, unique; made from the title when absent', public: true, filter: true, max: 120 } as const;

export const AREAS = {
  courses: {
    name: 'courses',
    path: '/courses',
    label: 'course',
    idPrefix: 'crs',
    readScope: 'courses:read',
    writeScope: 'courses:write',
    publicRead: { published: true },
    unique: ['slug'],
    onDelete: {
      cascade: [
        ['lessons', 'course_id'],
        ['sections', 'course_id'],
      ],
      restrict: [['enrollments', 'course_id']],
    },
    fields: {
      title: { type: 'string', required: true, description: 'Title', public: true, search: true },
      slug,
      summary: { type: 'string', max: 500, description: 'One-paragraph summary', public: true, search: true },
      description: { type: 'text', description: 'Full description (Markdown)', public: true },
      level: { type: 'enum', enum: ['beginner', 'intermediate', 'advanced'], description: 'Level', public: true, filter: true, default: 'beginner' },
      language: { type: 'string', max: 20, description: 'Language (BCP 47 tag)', public: true, filter: true, default: 'en' },
      price_cents: price,
      lecturer_ids: { type: 'json', description: 'Lecturers teaching it', public: true, default: [], schema: z.array(z.string().max(100)).max(20) },
      status,
    },
  },
  sections: {
    name: 'sections',
    path: '/curriculum/sections',
    label: 'curriculum section',
    idPrefix: 'sec',
    readScope: 'curriculum:read',
    writeScope: 'curriculum:write',
    sort: 'position',
    onDelete: { cascade: [['lessons', 'section_id']] },
    fields: {
      course_id: { type: 'ref', ref: 'courses', required: true, description: 'Course it belongs to', public: true, filter: true },
      title: { type: 'string', required: true, description: 'Title', public: true },
      position: { type: 'integer', description: 'Order within the course (0 first); when absent, after its last section', public: true, default: 0, max: 10_000, orderWithin: 'course_id' },
    },
  },
  lessons: {
    name: 'lessons',
    path: '/curriculum/lessons',
    label: 'lesson',
    idPrefix: 'les',
    readScope: 'curriculum:read',
    writeScope: 'curriculum:write',
    sort: 'position',
    fields: {
      section_id: { type: 'ref', ref: 'sections', required: true, description: 'Section it belongs to', public: true, filter: true },
      course_id: { type: 'ref', ref: 'courses', readOnly: true, description: 'Course it belongs to (from its section)', public: true, filter: true },
      title: { type: 'string', required: true, description: 'Title', public: true, search: true },
      kind: { type: 'enum', enum: ['video', 'text', 'quiz', 'assignment'], description: 'Kind of lesson', public: true, filter: true, default: 'text' },
      duration_minutes: { type: 'integer', description: 'Expected duration in minutes', public: true, default: 0, max: 10_000 },
      position: { type: 'integer', description: 'Order within the section (0 first); when absent, after its last lesson', public: true, default: 0, max: 10_000, orderWithin: 'section_id' },
      free_preview: { type: 'boolean', description: 'Open to everyone as a preview', public: true, default: false },
      content: { type: 'text', description: 'Lesson content (Markdown); only for the school, never public' },
    },
  },
  lecturers: {
    name: 'lecturers',
    path: '/lecturers',
    label: 'lecturer',
    idPrefix: 'lec',
    readScope: 'lecturers:read',
    writeScope: 'lecturers:write',
    publicRead: {},
    fields: {
      name: { type: 'string', required: true, description: 'Full name', public: true, search: true },
      headline: { type: 'string', description: 'Short headline', public: true, search: true },
      bio: { type: 'text', max: 10_000, description: 'Biography', public: true },
      expertise: { type: 'json', description: 'Subjects', public: true, default: [], schema: z.array(z.string().max(60)).max(20) },
      avatar_url: { type: 'url', description: 'Portrait', public: true },
      email: { type: 'email', description: 'Contact email (private)' },
    },
  },
  students: {
    name: 'students',
    path: '/students',
    label: 'student',
    idPrefix: 'stu',
    readScope: 'students:read',
    writeScope: 'students:write',
    unique: ['email'],
    onDelete: {
      cascade: [
        ['enrollments', 'student_id'],
        ['event_attendees', 'student_id'],
      ],
      restrict: [
        ['orders', 'student_id'],
        ['subscriptions', 'student_id'],
      ],
    },
    fields: {
      name: { type: 'string', required: true, description: 'Full name', search: true },
      email: { type: 'email', required: true, description: 'Email address (unique)', search: true, filter: true },
      status: { type: 'enum', enum: ['active', 'suspended'], description: 'active or suspended', filter: true, default: 'active' },
      user_id: { type: 'string', readOnly: true, lookup: true, description: 'Linked Lyceum account, when the student has one' },
      notes: { type: 'text', max: 10_000, description: 'Private notes of the school' },
    },
  },
  enrollments: {
    name: 'enrollments',
    path: '/enrollments',
    label: 'enrollment',
    idPrefix: 'enr',
    readScope: 'students:read',
    writeScope: 'students:write',
    unique: ['student_id,course_id'],
    fields: {
      student_id: { type: 'ref', ref: 'students', required: true, description: 'Student', filter: true },
      course_id: { type: 'ref', ref: 'courses', required: true, description: 'Course', filter: true },
      progress_percent: {
        type: 'integer',
        readOnly: true,
        description: "Progress, 0 to 100: the course's lessons completed over its lessons, rounded down (set by the server from lesson completions)",
        default: 0,
        max: 100,
      },
      completed_at: { type: 'datetime', readOnly: true, description: 'When the last lesson of the course was completed (set by the server; null while a lesson is left)' },
      access_expires_at: { type: 'datetime', description: "When the student's access to the course ends; null: it never does. Set a later time to extend it" },
    },
  },
  members: {
    name: 'members',
    path: '/members',
    label: 'team member',
    idPrefix: 'mem',
    readScope: 'members:read',
    writeScope: 'members:write',
    unique: ['email'],
    fields: {
      name: { type: 'string', required: true, description: 'Full name', search: true },
      email: { type: 'email', required: true, description: 'Email address (unique)', filter: true, search: true },
      role: { type: 'enum', enum: ['owner', 'admin', 'lecturer', 'support'], description: 'Role in the team', filter: true, default: 'support' },
      title: { type: 'string', description: 'Job title' },
    },
  },
  membership_plans: {
    name: 'membership_plans',
    path: '/membership-plans',
    label: 'membership plan',
    idPrefix: 'pln',
    readScope: 'membership_plans:read',
    writeScope: 'membership_plans:write',
    onDelete: { restrict: [['subscriptions', 'plan_id']] },
    publicRead: { published: true },
    fields: {
      name: { type: 'string', required: true, description: 'Name', public: true, search: true },
      description: { type: 'text', max: 10_000, description: 'What members get', public: true },
      price_cents: price,
      interval: { type: 'enum', enum: ['month', 'year', 'one_time'], description: 'Billing interval', public: true, filter: true, default: 'month' },
      benefits: { type: 'json', description: 'Benefits, one line each', public: true, default: [], schema: z.array(z.string().max(200)).max(30) },
      status,
    },
  },
  subscriptions: {
    name: 'subscriptions',
    path: '/subscriptions',
    label: 'subscription',
    idPrefix: 'sub',
    readScope: 'subscriptions:read',
    writeScope: 'subscriptions:write',
    fields: {
      student_id: { type: 'ref', ref: 'students', required: true, description: 'Subscriber', filter: true },
      plan_id: { type: 'ref', ref: 'membership_plans', required: true, description: 'Plan', filter: true },
      status: { type: 'enum', enum: ['active', 'past_due', 'cancelled'], description: 'State', filter: true, default: 'active' },
      current_period_end: { type: 'datetime', description: 'End of the paid period' },
      cancelled_at: { type: 'datetime', description: 'When it was cancelled' },
    },
  },
  digital_products: {
    name: 'digital_products',
    path: '/digital-products',
    label: 'digital product',
    idPrefix: 'prd',
    readScope: 'digital_products:read',
    writeScope: 'digital_products:write',
    publicRead: { published: true },
    fields: {
      name: { type: 'string', required: true, description: 'Name', public: true, search: true },
      description: { type: 'text', max: 10_000, description: 'Description', public: true, search: true },
      format: { type: 'string', max: 40, description: 'Format (PDF, video pack, template ...)', public: true, filter: true },
      price_cents: price,
      file_id: { type: 'ref', ref: 'files', description: 'The file buyers download (private)' },
      status,
    },
  },
  coupons: {
    name: 'coupons',
    path: '/coupons',
    label: 'coupon',
    idPrefix: 'cpn',
    readScope: 'coupons:read',
    writeScope: 'coupons:write',
    unique: ['code'],
    fields: {
      code: { type: 'string', required: true, max: 40, description: 'Code customers type (unique)', filter: true, search: true },
      percent_off: { type: 'integer', max: 100, description: 'Discount in percent (or use amount_off_cents)' },
      amount_off_cents: { type: 'integer', description: 'Discount in minor units' },
      valid_until: { type: 'datetime', description: 'Last moment it can be used' },
      max_redemptions: { type: 'integer', description: 'How many times it can be used (0: unlimited)', default: 0 },
      times_redeemed: { type: 'integer', readOnly: true, description: 'How many times it was used', default: 0 },
      active: { type: 'boolean', description: 'Can be used now', filter: true, default: true },
    },
  },
  orders: {
    name: 'orders',
    path: '/orders',
    label: 'order',
    idPrefix: 'ord',
    readScope: 'orders:read',
    fields: {
      student_id: { type: 'ref', ref: 'students', description: 'Buyer', filter: true },
      items: {
        type: 'json',
        description: 'What was bought',
        default: [],
        schema: z.array(z.looseObject({ kind: z.string().optional(), id: z.string().optional(), name: z.string().optional(), price_cents: z.int().optional() })),
      },
      total_cents: { type: 'integer', description: 'Amount paid in minor units' },
      currency: { type: 'string', description: 'ISO 4217 currency' },
      coupon_code: { type: 'string', description: 'Coupon used' },
      status: { type: 'enum', enum: ['pending', 'paid', 'refunded'], description: 'State', filter: true, default: 'paid' },
      paid_at: { type: 'datetime', description: 'When it was paid' },
    },
  },
  events: {
    name: 'events',
    path: '/events',
    label: 'event',
    idPrefix: 'evt',
    readScope: 'events:read',
    writeScope: 'events:write',
    onDelete: { cascade: [['event_attendees', 'event_id']] },
    publicRead: { published: true, upcoming: 'starts_at' },
    sort: 'starts_at',
    fields: {
      title: { type: 'string', required: true, description: 'Title', public: true, search: true },
      description: { type: 'text', max: 20_000, description: 'Description', public: true, search: true },
      starts_at: { type: 'datetime', required: true, description: 'Start', public: true },
      ends_at: { type: 'datetime', description: 'End', public: true },
      location: { type: 'string', description: 'Place, or "Online"', public: true },
      online_url: { type: 'url', description: 'Link for attendees (private)' },
      capacity: { type: 'integer', description: 'Seats (0: unlimited)', public: true, default: 0 },
      price_cents: price,
      status,
    },
  },
  event_attendees: {
    name: 'event_attendees',
    path: '/event-attendees',
    label: 'event attendee',
    idPrefix: 'att',
    readScope: 'events:read',
    writeScope: 'events:write',
    unique: ['event_id,email'],
    fields: {
      event_id: { type: 'ref', ref: 'events', required: true, description: 'Event', filter: true },
      student_id: { type: 'ref', ref: 'students', description: 'Student, when the attendee is one', filter: true },
      name: { type: 'string', required: true, description: 'Name' },
      email: { type: 'email', required: true, description: 'Email' },
    },
  },
  posts: {
    name: 'posts',
    path: '/posts',
    label: 'post',
    idPrefix: 'pst',
    readScope: 'posts:read',
    writeScope: 'posts:write',
    publicRead: { published: true },
    unique: ['slug'],
    fields: {
      title: { type: 'string', required: true, description: 'Title', public: true, search: true },
      slug,
      excerpt: { type: 'string', max: 500, description: 'Teaser', public: true, search: true },
      body: { type: 'text', description: 'Body (Markdown)', public: true },
      author_name: { type: 'string', description: 'Author', public: true },
      published_at: { type: 'datetime', description: 'Publication time', public: true },
      status,
    },
  },
  comments: {
    name: 'comments',
    path: '/comments',
    label: 'comment',
    idPrefix: 'cmt',
    readScope: 'comments:read',
    fields: {
      target_type: { type: 'enum', enum: ['course', 'post', 'lesson'], description: 'What it is about', filter: true },
      target_id: { type: 'string', description: 'Id of what it is about', filter: true },
      author_name: { type: 'string', description: 'Author' },
      student_id: { type: 'ref', ref: 'students', description: 'Author, when a student', filter: true },
      body: { type: 'text', description: 'Text', search: true },
    },
  },
  forms: {
    name: 'forms',
    path: '/forms',
    label: 'form',
    idPrefix: 'frm',
    readScope: 'forms:read',
    fields: {
      title: { type: 'string', description: 'Title', search: true },
      description: { type: 'text', description: 'Description' },
      fields: {
        type: 'json',
        description: 'Questions',
        default: [],
        schema: z.array(z.looseObject({ name: z.string().optional(), label: z.string().optional(), type: z.string().optional() })),
      },
    },
  },
  form_submissions: {
    name: 'form_submissions',
    path: '/form-submissions',
    label: 'form submission',
    idPrefix: 'fsb',
    readScope: 'forms:read',
    fields: {
      form_id: { type: 'ref', ref: 'forms', description: 'Form', filter: true },
      data: { type: 'json', description: 'Answers by question name', default: {}, schema: z.record(z.string(), z.unknown()) },
    },
  },
  pages: {
    name: 'pages',
    path: '/pages',
    label: 'page',
    idPrefix: 'pag',
    readScope: 'pages:read',
    writeScope: 'pages:write',
    publicRead: { published: true },
    unique: ['slug'],
    fields: {
      title: { type: 'string', required: true, description: 'Title', public: true, search: true },
      slug,
      body: { type: 'text', description: 'Body (Markdown)', public: true },
      status,
    },
  },
} satisfies Record<string, AreaDef>;

export type AreaName = keyof typeof AREAS;

/** "a course", "an event": the label with its indefinite article, for titles and summaries. */
export const aLabel = (area: Pick<AreaDef, 'label'>): string => `${/^[aeiou]/i.test(area.label) ? 'an' : 'a'} ${area.label}`;
export const AREA_LIST: AreaDef[] = Object.values(AREAS);
