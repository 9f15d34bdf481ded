import { randomBytes } from 'node:crypto';
import type { OutboxEvent, ProgressEvents, Row } from '../../store/types.ts';
import type { Scope } from '../../access/scopes.ts';
import { AREAS, type AreaDef, type AreaName } from '../areas.ts';
import { rowToRecord } from '../fields.ts';

/**
 * The events webhook receivers can subscribe to, each with what causes it and
 * the area whose records its payload carries: the one list that
 * subscriptions are checked against and /openapi.json and auth.md show.
 * A receiver is sent what a token with the area's read scope may read, so
 * subscribing to an event needs that scope (eventReadScopes).
 */
export const WEBHOOK_EVENTS = {
  'student.created': { when: 'A student was added.', carries: 'students' },
  'enrollment.created': { when: 'A student was enrolled in a course.', carries: 'enrollments' },
  'lesson.completed': { when: 'A student completed a lesson.', carries: 'enrollments' },
  'enrollment.completed': { when: 'A student completed every lesson of a course.', carries: 'enrollments' },
  'order.paid': { when: 'An order was created paid, or its status became paid.', carries: 'orders' },
  'order.refunded': { when: "An order's status became refunded.", carries: 'orders' },
  'course.published': { when: 'A course was created published, or its status became published.', carries: 'courses' },
  'form_submission.created': { when: 'A form was submitted.', carries: 'form_submissions' },
} as const satisfies Record<string, { when: string; carries: AreaName }>;

export type WebhookEventType = keyof typeof WEBHOOK_EVENTS;

export const WEBHOOK_EVENT_TYPES = Object.keys(WEBHOOK_EVENTS) as WebhookEventType[];

export const isWebhookEventType = (v: unknown): v is WebhookEventType => typeof v === 'string' && Object.hasOwn(WEBHOOK_EVENTS, v);

/** The area whose records an event's payload carries. */
export const eventArea = (type: WebhookEventType): AreaDef => AREAS[WEBHOOK_EVENTS[type].carries];

/** The read scopes of the data the named events carry, each once; names that are not events are passed over. */
export function eventReadScopes(types: readonly unknown[]): Scope[] {
  return [...new Set(types.filter(isWebhookEventType).map((t) => eventArea(t).readScope))];
}

/**
 * One event, ready for the outbox. The payload is the Standard Webhooks shape,
 * `{"type", "timestamp", "data"}`, with the record as the full view of the API
 * shows it; its id (`msg_…`) is the webhook-id header of every attempt.
 */
export function webhookEvent(type: WebhookEventType, data: Record<string, unknown>, now: number): OutboxEvent {
  return {
    id: `msg_${randomBytes(12).toString('base64url')}`,
    type,
    payload: JSON.stringify({ type, timestamp: new Date(now).toISOString(), data }),
    createdAt: now,
  };
}

/** What a record's creation, or a column taking a value, causes; areas not named cause nothing. */
const CAUSES: Record<string, { created?: WebhookEventType; became?: [column: string, value: unknown, type: WebhookEventType][] }> = {
  students: { created: 'student.created' },
  enrollments: { created: 'enrollment.created' },
  form_submissions: { created: 'form_submission.created' },
  orders: {
    became: [
      ['status', 'paid', 'order.paid'],
      ['status', 'refunded', 'order.refunded'],
    ],
  },
  courses: { became: [['status', 'published', 'course.published']] },
};

/** The events of a new record: its area's creation event, and each value it starts with that a change to would cause one. */
export function eventsOnCreate(area: AreaDef, row: Row, now: number): OutboxEvent[] {
  const cause = CAUSES[area.name];
  if (!cause) return [];
  const types = [...(cause.created ? [cause.created] : []), ...(cause.became?.filter(([col, value]) => row[col] === value).map(([, , type]) => type) ?? [])];
  return types.map((type) => webhookEvent(type, rowToRecord(area.fields, row), now));
}

/** For an update of the area: the events of its columns that took their value in this change; undefined when the area has none. */
export function eventsOnUpdate(area: AreaDef, now: number): ((before: Row, after: Row) => OutboxEvent[]) | undefined {
  const became = CAUSES[area.name]?.became;
  if (!became) return undefined;
  return (before, after) => became.filter(([col, value]) => before[col] !== value && after[col] === value).map(([, , type]) => webhookEvent(type, rowToRecord(area.fields, after), now));
}

/**
 * The events of a lesson completion: `lesson.completed` when the lesson was
 * not completed before, and `enrollment.completed` when it was the course's
 * last (the enrollment's completed_at went from empty to set). Marking a
 * completed lesson again changes nothing and fires nothing.
 */
export function eventsOnCompletion(now: number): ProgressEvents {
  return (change, before) => {
    if (!change.changed || !change.completion) return [];
    const enrollment = rowToRecord(AREAS.enrollments.fields, change.enrollment);
    const lesson = {
      enrollment_id: change.completion.enrollmentId,
      lesson_id: change.completion.lessonId,
      course_id: change.completion.courseId,
      student_id: enrollment.student_id,
      completed_at: new Date(change.completion.completedAt).toISOString(),
      progress_percent: enrollment.progress_percent,
    };
    const finished = (before.completed_at === null || before.completed_at === undefined) && change.enrollment.completed_at !== null && change.enrollment.completed_at !== undefined;
    return [webhookEvent('lesson.completed', lesson, now), ...(finished ? [webhookEvent('enrollment.completed', enrollment, now)] : [])];
  };
}
