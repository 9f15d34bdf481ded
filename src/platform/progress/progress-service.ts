import { writeEntry } from '../../activity/record.ts';
import type { Deps } from '../../deps.ts';
import { isCourseComplete, progressPercent } from '../../store/progress-rule.ts';
import type { ProgressChange, Row } from '../../store/types.ts';
import { AccountService } from '../account.ts';
import { AREAS } from '../areas.ts';
import { CurriculumService, type Outline } from '../curriculum.ts';
import { PlatformError } from '../errors.ts';
import { rowToRecord } from '../fields.ts';
import type { RecordService } from '../records.ts';
import { eventsOnCompletion } from '../webhooks/events.ts';

const iso = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : new Date(Number(ms)).toISOString());

/** The access an enrollment gives has ended: its access_expires_at is set and has passed. */
export function accessExpired(enrollment: Row, now: number): boolean {
  const ends = enrollment.access_expires_at;
  return ends !== null && ends !== undefined && Number(ends) <= now;
}

/** What PUT and DELETE of a completion answer: the lesson's state and the enrollment's new progress. */
export interface CompletionResult {
  lesson_id: string;
  completed: boolean;
  /** When the lesson was completed; null when it is not. */
  completed_at: string | null;
  /** False when the lesson already was (PUT) or was not (DELETE) completed. */
  changed: boolean;
  completed_lessons: number;
  total_lessons: number;
  enrollment: Record<string, unknown>;
}

/** An enrollment's progress, lesson by lesson in curriculum order, computed now. */
export interface ProgressReport {
  enrollment_id: string;
  student_id: string;
  course_id: string;
  progress_percent: number;
  completed_at: string | null;
  access_expires_at: string | null;
  access_expired: boolean;
  completed_lessons: number;
  total_lessons: number;
  lessons: { id: string; section_id: string; title: unknown; completed_at: string | null }[];
}

const NO_STUDENT = 'Your account has no student record at this school';

/**
 * Lesson completions and the enrollment progress made from them, for the
 * school (students:write, any enrollment) and for learners (account:*, their
 * own enrollments only). Every change goes through the progress store, which
 * writes a completion and the enrollment's percent in one transaction.
 */
/** What a completion changes of an enrollment, as its activity entry names it. */
const PROGRESS_FIELD = 'completed_lessons';

export class ProgressService {
  constructor(
    private readonly deps: Deps,
    private readonly records: RecordService,
  ) {}

  /** Marks a lesson of the enrollment's course completed; already completed is not an error (PUT is idempotent). */
  async complete(enrollmentId: string, lessonId: string): Promise<CompletionResult> {
    const enrollment = await this.records.getRow(AREAS.enrollments, 'full', enrollmentId);
    const lesson = await this.lessonOf(enrollment, lessonId);
    const now = this.deps.now();
    const entry = await writeEntry(this.deps, 'record.updated', AREAS.enrollments.name, enrollmentId, [PROGRESS_FIELD]);
    return this.result(lessonId, await this.deps.store.progress.complete(enrollmentId, lessonId, String(lesson.course_id), now, eventsOnCompletion(now), entry), enrollmentId);
  }

  /** Undoes a completion; a lesson that is not completed is not an error. */
  async uncomplete(enrollmentId: string, lessonId: string): Promise<CompletionResult> {
    const enrollment = await this.records.getRow(AREAS.enrollments, 'full', enrollmentId);
    await this.lessonOf(enrollment, lessonId);
    const entry = await writeEntry(this.deps, 'record.updated', AREAS.enrollments.name, enrollmentId, [PROGRESS_FIELD]);
    return this.result(lessonId, await this.deps.store.progress.uncomplete(enrollmentId, lessonId, this.deps.now(), entry), enrollmentId);
  }

  async report(enrollmentId: string): Promise<ProgressReport> {
    return (await this.reports([enrollmentId]))[0]!;
  }

  /**
   * The reports of several enrollments, in order, each course's curriculum
   * read once: a course's progress lists many enrollments of one course.
   */
  async reports(enrollmentIds: readonly string[]): Promise<ProgressReport[]> {
    const outlines = new Map<string, Promise<Outline>>();
    const reports: ProgressReport[] = [];
    for (const id of enrollmentIds) {
      const enrollment = await this.records.getRow(AREAS.enrollments, 'full', id);
      const courseId = String(enrollment.course_id);
      if (!outlines.has(courseId)) outlines.set(courseId, new CurriculumService(this.deps, this.records).outline(courseId, 'full'));
      reports.push(await this.reportOf(enrollment, await outlines.get(courseId)!));
    }
    return reports;
  }

  /**
   * The signed-in learner marks (or unmarks) a lesson: only a lesson of a course
   * their own student record is enrolled in, while the record is active, the
   * course is not in draft and the enrollment's access has not ended.
   */
  async setMine(userId: string, lessonId: string, completed: boolean): Promise<CompletionResult> {
    const student = await this.myStudent(userId);
    const lesson = lessonId.length <= 100 ? await this.deps.store.records.get('lessons', lessonId) : undefined;
    if (!lesson) throw new PlatformError('not_found', `No lesson with id ${lessonId}`);
    const [enrollment] = await this.deps.store.records.select(
      'enrollments',
      ['id', 'access_expires_at'],
      [
        ['student_id', '=', student.id],
        ['course_id', '=', String(lesson.course_id)],
      ],
    );
    if (!enrollment) throw new PlatformError('not_enrolled', `You are not enrolled in the course of lesson ${lessonId}`);
    if (student.status !== 'active') throw new PlatformError('lesson_not_open', 'Your student record is suspended, so no lesson is open to you');
    const course = await this.deps.store.records.get('courses', String(lesson.course_id));
    if (!course || course.status === 'draft') throw new PlatformError('lesson_not_open', 'The course of this lesson is not open yet');
    if (accessExpired(enrollment, this.deps.now())) {
      throw new PlatformError('access_expired', `Your access to this course ended at ${iso(Number(enrollment.access_expires_at))}`);
    }
    return completed ? this.complete(String(enrollment.id), lessonId) : this.uncomplete(String(enrollment.id), lessonId);
  }

  /** The learner's own enrollment's progress; another student's enrollment is not found, as if it did not exist. */
  async myReport(userId: string, enrollmentId: string): Promise<ProgressReport> {
    const student = await this.myStudent(userId);
    const row = enrollmentId.length <= 100 ? await this.deps.store.records.get('enrollments', enrollmentId) : undefined;
    if (!row || row.student_id !== student.id) throw new PlatformError('not_found', `You have no enrollment with id ${enrollmentId}`);
    return this.reportOf(row, await new CurriculumService(this.deps, this.records).outline(String(row.course_id), 'full'));
  }

  private async myStudent(userId: string) {
    const student = await new AccountService(this.deps, this.records).studentOf(userId);
    if (!student) throw new PlatformError('not_found', NO_STUDENT);
    return student;
  }

  /** The lesson, which must belong to the enrollment's course: a lesson of another course is not found under it. */
  private async lessonOf(enrollment: Row, lessonId: string): Promise<Row> {
    const lesson = lessonId.length <= 100 ? await this.deps.store.records.get('lessons', lessonId) : undefined;
    if (!lesson) throw new PlatformError('not_found', `No lesson with id ${lessonId}`);
    if (lesson.course_id !== enrollment.course_id) {
      throw new PlatformError('not_found', `Lesson ${lessonId} is not a lesson of course ${String(enrollment.course_id)}, the course of enrollment ${String(enrollment.id)}`);
    }
    return lesson;
  }

  private result(lessonId: string, change: ProgressChange | undefined, enrollmentId: string): CompletionResult {
    // The enrollment was read just before; it can only be gone if deleted in between.
    if (!change) throw new PlatformError('not_found', `No enrollment with id ${enrollmentId}`);
    return {
      lesson_id: lessonId,
      completed: change.completion !== null,
      completed_at: iso(change.completion?.completedAt),
      changed: change.changed,
      completed_lessons: change.completedLessons,
      total_lessons: change.totalLessons,
      enrollment: rowToRecord(AREAS.enrollments.fields, change.enrollment),
    };
  }

  private async reportOf(enrollment: Row, outline: Outline): Promise<ProgressReport> {
    const courseId = String(enrollment.course_id);
    const done = new Map((await this.deps.store.progress.completions(String(enrollment.id))).map((c) => [c.lessonId, c.completedAt]));
    const lessons = outline.sections.flatMap((s) => s.lessons.map((l) => ({ id: String(l.id), section_id: String(s.id), title: l.title, completed_at: iso(done.get(String(l.id))) })));
    const completed = lessons.filter((l) => l.completed_at !== null).length;
    const stored = enrollment.completed_at === null || enrollment.completed_at === undefined ? null : Number(enrollment.completed_at);
    return {
      enrollment_id: String(enrollment.id),
      student_id: String(enrollment.student_id),
      course_id: courseId,
      progress_percent: progressPercent(completed, lessons.length),
      // As the store keeps it: the moment the last lesson was completed, while every lesson still is.
      completed_at: isCourseComplete(completed, lessons.length) ? iso(stored ?? Math.max(...done.values())) : null,
      access_expires_at: iso(enrollment.access_expires_at as number | null),
      access_expired: accessExpired(enrollment, this.deps.now()),
      completed_lessons: completed,
      total_lessons: lessons.length,
      lessons,
    };
  }
}
