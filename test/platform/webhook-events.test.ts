/**
 * Which webhook events a write causes (src/platform/webhooks/events.ts),
 * stated by hand for each cause a receiver relies on: a creation, a column
 * taking its value, a lesson completion and the course's last one. An
 * event fired twice, fired for a value a column already had, or not fired
 * at all is what a school's integration would see.
 */
import { describe, expect, it } from 'vitest';
import { AREAS } from '../../src/platform/areas.ts';
import { eventsOnCompletion, eventsOnCreate, eventsOnUpdate, isWebhookEventType } from '../../src/platform/webhooks/events.ts';
import type { OutboxEvent, ProgressChange, Row } from '../../src/store/types.ts';

const NOW = 1_750_000_000_000;
const types = (events: OutboxEvent[] | undefined) => events?.map((e) => e.type);
/** A stored row: every record carries its times. */
const row = (values: Row): Row => ({ created_at: NOW, updated_at: NOW, ...values });
const payload = (e: OutboxEvent) => JSON.parse(e.payload) as { type: string; timestamp: string; data: Record<string, unknown> };

describe('webhook event types', () => {
  it('are the names of the events and nothing else, whatever the value looks like as text', () => {
    expect(isWebhookEventType('student.created')).toBe(true);
    expect(isWebhookEventType('student.deleted')).toBe(false);
    // An array of one event name reads as that name once made text: still not an event type.
    expect(isWebhookEventType(['student.created'])).toBe(false);
    expect(isWebhookEventType({ toString: () => 'order.paid' })).toBe(false);
    expect(isWebhookEventType(undefined)).toBe(false);
  });
});

describe('events of a new record', () => {
  it('its area’s creation event, with the record as the API shows it', () => {
    const [event, ...more] = eventsOnCreate(AREAS.students, row({ id: 'stu_1', name: 'Ada', email: 'ada@example.test', status: 'active' }), NOW);
    expect(more).toEqual([]);
    expect(payload(event!)).toMatchObject({ type: 'student.created', timestamp: new Date(NOW).toISOString(), data: { id: 'stu_1', name: 'Ada' } });
    expect(event!.id).toMatch(/^msg_/);
  });

  it('an event for each value it starts with that a change to would cause, and none for other values', () => {
    expect(types(eventsOnCreate(AREAS.orders, row({ id: 'ord_1', status: 'paid' }), NOW))).toEqual(['order.paid']);
    expect(types(eventsOnCreate(AREAS.orders, row({ id: 'ord_2', status: 'pending' }), NOW))).toEqual([]);
    expect(types(eventsOnCreate(AREAS.courses, row({ id: 'crs_1', status: 'published' }), NOW))).toEqual(['course.published']);
    expect(types(eventsOnCreate(AREAS.courses, row({ id: 'crs_2', status: 'draft' }), NOW))).toEqual([]);
  });

  it('nothing for an area without events', () => {
    expect(eventsOnCreate(AREAS.lessons, row({ id: 'les_1' }), NOW)).toEqual([]);
  });
});

describe('events of a change', () => {
  const orders = eventsOnUpdate(AREAS.orders, NOW)!;

  it('the event of the value a column takes in this change, once', () => {
    expect(types(orders(row({ status: 'pending' }), row({ status: 'paid' })))).toEqual(['order.paid']);
    expect(types(orders(row({ status: 'paid' }), row({ status: 'refunded' })))).toEqual(['order.refunded']);
    expect(types(orders(row({ status: 'pending' }), row({ status: 'refunded' })))).toEqual(['order.refunded']);
  });

  it('nothing when the column already had the value, or takes another', () => {
    expect(orders(row({ status: 'paid' }), row({ status: 'paid' }))).toEqual([]);
    expect(orders(row({ status: 'paid' }), row({ status: 'pending' }))).toEqual([]);
  });

  it('no update events at all for an area whose changes cause none', () => {
    expect(eventsOnUpdate(AREAS.students, NOW)).toBeUndefined();
  });
});

describe('events of a lesson completion', () => {
  const completion = { enrollmentId: 'enr_1', lessonId: 'les_1', courseId: 'crs_1', completedAt: NOW };
  const change = (enrollment: Row, over: Partial<ProgressChange> = {}): ProgressChange => ({
    enrollment: row({ id: 'enr_1', student_id: 'stu_1', course_id: 'crs_1', progress_percent: 50, completed_at: null, ...enrollment }),
    completion,
    changed: true,
    completedLessons: 1,
    totalLessons: 2,
    ...over,
  });
  const fire = eventsOnCompletion(NOW);

  it('lesson.completed for a lesson not completed before, with the enrollment’s new percent', () => {
    const [event, ...more] = fire(change({}), { completed_at: null });
    expect(more).toEqual([]);
    expect(payload(event!).data).toEqual({
      enrollment_id: 'enr_1',
      lesson_id: 'les_1',
      course_id: 'crs_1',
      student_id: 'stu_1',
      completed_at: new Date(NOW).toISOString(),
      progress_percent: 50,
    });
  });

  it('enrollment.completed too when the course’s last lesson set the enrollment’s completed_at', () => {
    const done = change({ progress_percent: 100, completed_at: NOW });
    expect(types(fire(done, { completed_at: null }))).toEqual(['lesson.completed', 'enrollment.completed']);
    expect(types(fire(done, {}))).toEqual(['lesson.completed', 'enrollment.completed']);
  });

  it('no enrollment.completed when the enrollment was already completed, or is not yet', () => {
    expect(types(fire(change({ completed_at: NOW }), { completed_at: NOW - 1 }))).toEqual(['lesson.completed']);
    expect(types(fire(change({ completed_at: null }), { completed_at: null }))).toEqual(['lesson.completed']);
    expect(types(fire(change({ completed_at: undefined }), { completed_at: null }))).toEqual(['lesson.completed']);
  });

  it('nothing when nothing was written, or for an undo', () => {
    expect(fire(change({}, { changed: false }), { completed_at: null })).toEqual([]);
    expect(fire(change({}, { completion: null }), { completed_at: null })).toEqual([]);
  });
});
