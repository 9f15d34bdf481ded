import type { ActivityEntry } from './activity.ts';
import type { OutboxEvent } from './webhooks.ts';
import type { Row } from './records.ts';

/** The webhook events of a progress change, given the change and the enrollment row before it. */
export type ProgressEvents = (change: ProgressChange, before: Row) => OutboxEvent[];

/** A completion as the progress store reads it back. */
export interface LessonCompletion {
  enrollmentId: string;
  lessonId: string;
  courseId: string;
  completedAt: number;
}

/** An enrollment's progress after a completion or an undo, with what the change did. */
export interface ProgressChange {
  /** The enrollment row as it now is. */
  enrollment: Row;
  /** The lesson's completion, or null after an undo. */
  completion: LessonCompletion | null;
  /** False when the lesson already was (complete) or was not (undo) completed: nothing was written. */
  changed: boolean;
  /** Completed lessons of the course (lessons that still exist) and the course's lessons. */
  completedLessons: number;
  totalLessons: number;
}

/**
 * Per-lesson progress of enrollments. A completion or an undo and the
 * enrollment's `progress_percent` and `completed_at` are written in one
 * transaction, so that anything else done with the change (an event for
 * subscribers) can join that transaction and never see one without the other.
 */
export interface ProgressStore {
  /**
   * Contract: marks `lessonId` (a lesson of the enrollment's course) completed at `now` unless it
   * already is, then recomputes the enrollment's percent: completed lessons of the course that still
   * exist over the course's lessons, rounded down; 100 and `completed_at` only when every lesson is
   * completed (the first time: `completed_at` is kept while it stays so). Undefined for an unknown enrollment.
   * `activity` is appended in the same transaction when something changed.
   * Racing calls for one enrollment are serialised on its row, so the last one counts every completion.
   * `events` (given the change and the enrollment row before it) are written to the webhook outbox in
   * the same transaction.
   */
  complete(enrollmentId: string, lessonId: string, courseId: string, now: number, events?: ProgressEvents, activity?: ActivityEntry): Promise<ProgressChange | undefined>;
  /** Contract: as complete, removing the completion; `completed_at` is cleared when a lesson is left undone. */
  uncomplete(enrollmentId: string, lessonId: string, now: number, activity?: ActivityEntry): Promise<ProgressChange | undefined>;
  /** The enrollment's completions of lessons that still exist, oldest first. */
  completions(enrollmentId: string): Promise<LessonCompletion[]>;
}
