import type { Deps } from '../../deps.ts';
import { isEmailAddress } from '../../util/email-address.ts';
import { AREAS } from '../areas.ts';
import { PlatformError } from '../errors.ts';
import type { RecordService } from '../records.ts';

/** The most rows one bulk call takes; a larger list is 400 and nothing is written. */
export const BULK_ENROLL_LIMIT = 500;

export interface EnrollByEmailInput {
  email: string;
  course_id: string;
  /** The student's name when one is created; the part of the email before @ when absent. */
  name?: string;
}

export interface EnrollOutcome {
  created_student: boolean;
  created_enrollment: boolean;
  student: { id: string; name: unknown; email: unknown };
  enrollment: Record<string, unknown>;
}

export interface BulkEnrollInput {
  course_id: string;
  emails?: string[];
  students?: { email: string; name?: string }[];
}

export interface BulkRowResult {
  email: string;
  status: 'created' | 'existing' | 'invalid';
  enrollment_id?: string;
  student_id?: string;
  created_student?: boolean;
  error?: string;
}

/** The route's schema checks the shape already; an MCP tool's input reaches here unchecked. */
function checkedEmail(email: string): void {
  if (!isEmailAddress(email.trim())) throw new PlatformError('invalid_request', 'email is not an email address');
}

const isConflict = (err: unknown) => err instanceof PlatformError && err.code === 'conflict';

/**
 * Enrolment by email address, an upsert: the student with that email (created
 * when there is none) is enrolled in the course unless already enrolled, and
 * the enrollment is answered either way. Racing calls for one email rely on the
 * unique keys (students.email, enrollments(student_id, course_id)): the loser
 * of an insert reads the winner's row, so there is one student and one
 * enrollment and never an error.
 */
export class EnrollByEmailService {
  constructor(
    private readonly deps: Deps,
    private readonly records: RecordService,
  ) {}

  async enroll(input: EnrollByEmailInput): Promise<EnrollOutcome> {
    checkedEmail(input.email);
    await this.course(input.course_id);
    return this.enrollChecked(input.email, input.course_id, input.name);
  }

  /** What enroll would do, writing nothing: the student and enrollment that exist, and which would be created. */
  async preview(
    input: EnrollByEmailInput,
  ): Promise<{ would_create_student: boolean; would_create_enrollment: boolean; student: EnrollOutcome['student'] | null; enrollment: Record<string, unknown> | null }> {
    checkedEmail(input.email);
    await this.course(input.course_id);
    const student = await this.studentWith(input.email.trim().toLowerCase());
    const enrollment = student ? await this.enrollmentOf(student.id, input.course_id) : undefined;
    return { would_create_student: !student, would_create_enrollment: !enrollment, student: student ?? null, enrollment: enrollment ?? null };
  }

  /** Each row on its own, in order: a bad address is an `invalid` row, and the others go on. */
  async enrollMany(input: BulkEnrollInput): Promise<{ course_id: string; results: BulkRowResult[]; counts: Record<BulkRowResult['status'], number> }> {
    const rows: { email: string; name?: string | undefined }[] = [...(input.emails ?? []).map((email) => ({ email })), ...(input.students ?? [])];
    if (rows.length === 0) throw new PlatformError('invalid_request', 'Send emails or students: at least one row');
    if (rows.length > BULK_ENROLL_LIMIT) throw new PlatformError('invalid_request', `At most ${BULK_ENROLL_LIMIT} rows per call; send the rest in another call`);
    await this.course(input.course_id);
    const results: BulkRowResult[] = [];
    for (const row of rows) {
      const email = row.email.trim();
      if (!isEmailAddress(email)) {
        results.push({ email: row.email, status: 'invalid', error: 'not an email address' });
        continue;
      }
      const outcome = await this.enrollChecked(email, input.course_id, row.name);
      results.push({
        email: email.toLowerCase(),
        status: outcome.created_enrollment ? 'created' : 'existing',
        enrollment_id: String(outcome.enrollment.id),
        student_id: outcome.student.id,
        created_student: outcome.created_student,
      });
    }
    const counts = { created: 0, existing: 0, invalid: 0 };
    for (const r of results) counts[r.status]++;
    return { course_id: input.course_id, results, counts };
  }

  private async course(courseId: string): Promise<void> {
    const course = courseId.length <= 100 ? await this.deps.store.records.get('courses', courseId) : undefined;
    if (!course) throw new PlatformError('invalid_request', `course_id: no course with id ${courseId}`);
  }

  private async enrollChecked(rawEmail: string, courseId: string, rawName: string | undefined): Promise<EnrollOutcome> {
    const email = rawEmail.trim().toLowerCase();
    const { student, created: createdStudent } = await this.student(email, rawName?.trim() || email.split('@')[0]!);
    const existing = await this.enrollmentOf(student.id, courseId);
    if (existing) return { created_student: createdStudent, created_enrollment: false, student, enrollment: existing };
    try {
      const enrollment = await this.records.create(AREAS.enrollments, { student_id: student.id, course_id: courseId });
      return { created_student: createdStudent, created_enrollment: true, student, enrollment };
    } catch (err) {
      // Another call enrolled the student between the read and the insert: theirs is the enrollment.
      const winner = isConflict(err) ? await this.enrollmentOf(student.id, courseId) : undefined;
      if (!winner) throw err;
      return { created_student: createdStudent, created_enrollment: false, student, enrollment: winner };
    }
  }

  private async student(email: string, name: string): Promise<{ student: EnrollOutcome['student']; created: boolean }> {
    const found = await this.studentWith(email);
    if (found) return { student: found, created: false };
    try {
      const created = await this.records.create(AREAS.students, { name: name.slice(0, 200), email });
      return { student: { id: String(created.id), name: created.name, email: created.email }, created: true };
    } catch (err) {
      // Another call created a student with this email first: that one is the student.
      const winner = isConflict(err) ? await this.studentWith(email) : undefined;
      if (!winner) throw err;
      return { student: winner, created: false };
    }
  }

  /**
   * The student and the enrollment are found by their keys in the store, then read through
   * the record service, so that an answer shows them as the caller is shown every record
   * (an MCP call under learner pseudonyms sees the pseudonym, never the stored name).
   */
  private async studentWith(email: string): Promise<EnrollOutcome['student'] | undefined> {
    const [row] = await this.deps.store.records.select('students', ['id'], [['email', '=', email]]);
    if (!row) return undefined;
    const student = await this.records.get(AREAS.students, 'full', String(row.id));
    return { id: String(student.id), name: student.name, email: student.email };
  }

  private async enrollmentOf(studentId: string, courseId: string): Promise<Record<string, unknown> | undefined> {
    const [row] = await this.deps.store.records.select(
      'enrollments',
      ['id'],
      [
        ['student_id', '=', studentId],
        ['course_id', '=', courseId],
      ],
    );
    return row && this.records.get(AREAS.enrollments, 'full', String(row.id));
  }
}
