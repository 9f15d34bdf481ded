/**
 * Shapes of the demo school's data. Records point at each other by short
 * keys ('python', 's07', ...); the seeder turns keys into ids. Times are
 * given in days relative to the moment of seeding, so the demo always looks
 * current: `daysAgo` counts back, `inDays` forward (negative: in the past).
 */

export type Status = 'draft' | 'published' | 'archived';

export interface SchoolSettings {
  name: string;
  description: string;
  locale: string;
  currency: string;
  timezone: string;
  contact_email: string;
  contact_phone: string;
  legal_name: string;
  address: string;
  website: string;
}

export interface Appearance {
  theme: 'light' | 'dark';
  primary_color: string;
  accent_color: string;
  logo_url: string | null;
  logo_file_id: string | null;
}

export interface DemoMember {
  name: string;
  email: string;
  role: 'owner' | 'admin' | 'lecturer' | 'support';
  title: string;
  daysAgo: number;
}

export interface DemoLecturer {
  key: string;
  name: string;
  headline: string;
  bio: string;
  expertise: string[];
  avatar_url: string;
  email: string;
  daysAgo: number;
}

/** [title, kind, minutes, free preview] with optional Markdown content. */
export type DemoLesson =
  | [title: string, kind: 'video' | 'text' | 'quiz' | 'assignment', minutes: number]
  | [title: string, kind: 'video' | 'text' | 'quiz' | 'assignment', minutes: number, preview: boolean]
  | [title: string, kind: 'video' | 'text' | 'quiz' | 'assignment', minutes: number, preview: boolean, content: string];

export interface DemoSection {
  title: string;
  lessons: DemoLesson[];
}

export interface DemoCourse {
  key: string;
  title: string;
  slug: string;
  summary: string;
  description: string;
  level: 'beginner' | 'intermediate' | 'advanced';
  price_cents: number;
  lecturers: string[];
  status: Status;
  daysAgo: number;
  sections: DemoSection[];
}

export interface DemoPlan {
  key: string;
  name: string;
  description: string;
  price_cents: number;
  interval: 'month' | 'year';
  benefits: string[];
  daysAgo: number;
}

export interface DemoProduct {
  key: string;
  name: string;
  description: string;
  format: string;
  price_cents: number;
  status: Status;
  daysAgo: number;
}

export interface DemoEvent {
  key: string;
  title: string;
  description: string;
  /** Days from the seeding moment; the time of day is `hour` (UTC). */
  inDays: number;
  hour: number;
  minutes: number;
  location: string;
  online_url?: string;
  capacity: number;
  price_cents: number;
  status: Status;
  /** Students (by key) and guests ([name, email]) who signed up. */
  attendees: (string | [name: string, email: string])[];
}

export interface DemoPost {
  key: string;
  title: string;
  slug: string;
  excerpt: string;
  body: string;
  author_name: string;
  /** Published posts: when; drafts have none. */
  publishedDaysAgo?: number;
  daysAgo: number;
}

export interface DemoPage {
  title: string;
  slug: string;
  body: string;
  status: Status;
  daysAgo: number;
}

export interface DemoForm {
  key: string;
  title: string;
  description: string;
  fields: { name: string; label: string; type: string }[];
  daysAgo: number;
  submissions: { daysAgo: number; data: Record<string, unknown> }[];
}

export interface DemoStudent {
  key: string;
  name: string;
  email: string;
  daysAgo: number;
  status?: 'active' | 'suspended';
  notes?: string;
  /** Course key → progress in percent (100: completed). */
  enrollments: Record<string, number>;
}

export interface DemoCoupon {
  code: string;
  percent_off?: number;
  amount_off_cents?: number;
  /** Days from the seeding moment until it expires (negative: already expired). */
  validInDays?: number;
  max_redemptions: number;
  active: boolean;
  daysAgo: number;
}

/** What an order line points at: 'course:python', 'plan:yearly', 'product:sql-workbook'. */
export type ItemRef = `${'course' | 'plan' | 'product'}:${string}`;

export interface DemoOrder {
  student: string;
  daysAgo: number;
  items: ItemRef[];
  coupon?: string;
  status: 'paid' | 'refunded';
}

export interface DemoSubscription {
  student: string;
  plan: string;
  /** The paid period started this many days ago. */
  periodStartedDaysAgo: number;
  status: 'active' | 'past_due' | 'cancelled';
  cancelledDaysAgo?: number;
  daysAgo: number;
}

export interface DemoComment {
  on: `${'course' | 'post'}:${string}`;
  /** A student key, or a guest's name. */
  student?: string;
  author?: string;
  body: string;
  daysAgo: number;
}
