import { AREAS } from '../platform/areas.ts';
import type { Row, Store } from '../store/types.ts';
import { clearPlatform, seedDemo, storedRow } from './seed.ts';

/**
 * A large school on demand (`lyceum seed --scale N`): the demo school, then
 * as many generated students as make N, with a history of five years as the
 * API would have written it: about 4 enrollments and 1.5 orders per student,
 * about 3.8 lessons completed per enrollment (one in seven courses finished),
 * one course per 500 students with 10 lessons each. The same N gives the
 * same rows, ids and times relative to `now`, on either store.
 */

const DAY = 86_400_000;
const YEARS = 5;
/** Lessons per section of a generated course: ten lessons in three parts. */
const SECTIONS = [3, 3, 4];
/** Rows held per table before they are written. */
const BATCH = 5000;

const FIRST = [
  'Ada',
  'Bruno',
  'Chiara',
  'Dmitri',
  'Elif',
  'Farah',
  'Goran',
  'Hana',
  'Ines',
  'Jonas',
  'Kaito',
  'Lena',
  'Mateo',
  'Nia',
  'Omar',
  'Priya',
  'Quentin',
  'Rosa',
  'Sven',
  'Tariq',
  'Uma',
  'Viktor',
  'Wen',
  'Yara',
  'Zoltan',
];
const LAST = [
  'Abebe',
  'Berg',
  'Costa',
  'Dubois',
  'Eriksen',
  'Fischer',
  'García',
  'Haddad',
  'Ivanova',
  'Jensen',
  'Kowalski',
  'Lindqvist',
  'Moreau',
  'Nakamura',
  'Okafor',
  'Petrov',
  'Rossi',
  'Santos',
  'Tanaka',
  'Virtanen',
];
const SUBJECTS = ['Statistics', 'Typography', 'Rust', 'Negotiation', 'Photography', 'Accounting', 'Spanish', 'Kubernetes', 'Ethics', 'Design Systems', 'Bookkeeping', 'Calculus'];
const ANGLES = ['Foundations of', 'Applied', 'Advanced', 'A Practical Guide to', 'Weekend', 'Project-based'];

/** A seeded sequence of numbers in [0, 1) (mulberry32): the same seed, the same school. */
function sequence(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

interface Course {
  id: string;
  price: number;
  lessons: string[];
}

/** Rows waiting to be written, per table, flushed parents first so references always hold. */
class Batches {
  private readonly waiting = new Map<string, Row[]>(['students', 'enrollments', 'lesson_completions', 'orders'].map((t) => [t, []]));
  readonly written: Record<string, number> = {};

  constructor(private readonly store: Store) {}

  async add(table: string, row: Row): Promise<void> {
    const list = this.waiting.get(table)!;
    list.push(row);
    if (list.length >= BATCH) await this.flush();
  }

  async flush(): Promise<void> {
    for (const [table, rows] of this.waiting) {
      if (rows.length === 0) continue;
      const batch = rows.splice(0);
      await this.store.records.insertMany(table, batch);
      this.written[table] = (this.written[table] ?? 0) + batch.length;
    }
  }
}

async function generatedCourses(store: Store, count: number, start: number, random: () => number): Promise<void> {
  const lecturers = (await store.records.select('lecturers', ['id'], [])).map((r) => String(r.id)).sort();
  const courses: Row[] = [];
  const sections: Row[] = [];
  const lessons: Row[] = [];
  for (let i = 0; i < count; i++) {
    const created = start + Math.floor(random() * YEARS * 365) * DAY;
    const title = `${ANGLES[i % ANGLES.length]!} ${SUBJECTS[Math.floor(i / ANGLES.length) % SUBJECTS.length]!} ${Math.floor(i / (ANGLES.length * SUBJECTS.length)) + 1}`;
    const id = `crs_scale_${i}`;
    const status = random() < 0.9 ? 'published' : random() < 0.5 ? 'draft' : 'archived';
    courses.push(
      storedRow(
        AREAS.courses,
        id,
        {
          title,
          slug: `scale-${i}`,
          summary: `${title}: ten lessons, from the first idea to a finished project.`,
          level: ['beginner', 'intermediate', 'advanced'][i % 3],
          price_cents: 1900 + (i % 8) * 1000,
          lecturer_ids: [lecturers[i % lecturers.length]],
          status,
        },
        created,
      ),
    );
    let position = 0;
    for (const [s, size] of SECTIONS.entries()) {
      const section = `sec_scale_${i}_${s}`;
      sections.push(storedRow(AREAS.sections, section, { course_id: id, title: `Part ${s + 1}`, position: s }, created));
      for (let l = 0; l < size; l++, position++) {
        lessons.push(
          storedRow(
            AREAS.lessons,
            `les_scale_${i}_${position}`,
            {
              section_id: section,
              course_id: id,
              title: `Lesson ${position + 1}`,
              kind: ['video', 'text', 'quiz', 'assignment'][position % 4],
              duration_minutes: 10 + (position % 4) * 5,
              position: l,
              content: `## Lesson ${position + 1}\n\nWork through the example, then try it yourself.`,
            },
            created,
          ),
        );
      }
    }
  }
  await store.records.insertMany('courses', courses);
  await store.records.insertMany('sections', sections);
  await store.records.insertMany('lessons', lessons);
}

/** Every course with its price and lessons in order, published ones only (students enroll in those). */
async function publishedCourses(store: Store): Promise<Course[]> {
  const courses = await store.records.select('courses', ['id', 'price_cents'], [['status', '=', 'published']]);
  const lessons = await store.records.select('lessons', ['id', 'course_id', 'position', 'section_id'], []);
  const sections = new Map((await store.records.select('sections', ['id', 'position'], [])).map((s) => [String(s.id), Number(s.position)]));
  const byCourse = new Map<string, Row[]>();
  for (const l of lessons) {
    const list = byCourse.get(String(l.course_id));
    if (list) list.push(l);
    else byCourse.set(String(l.course_id), [l]);
  }
  const order = (l: Row) => (sections.get(String(l.section_id)) ?? 0) * 10_000 + Number(l.position);
  return courses
    .map((c) => ({
      id: String(c.id),
      price: Number(c.price_cents),
      lessons: (byCourse.get(String(c.id)) ?? []).sort((a, b) => order(a) - order(b) || String(a.id).localeCompare(String(b.id))).map((l) => String(l.id)),
    }))
    .filter((c) => c.lessons.length > 0)
    .sort((a, b) => a.id.localeCompare(b.id));
}

/** One generated student with their enrollments, completions and orders. */
async function student(batches: Batches, i: number, courses: Course[], start: number, now: number, random: () => number): Promise<void> {
  const joined = start + Math.floor(random() * (now - start - DAY));
  const id = `stu_scale_${i}`;
  const first = FIRST[i % FIRST.length]!;
  const last = LAST[Math.floor(i / FIRST.length) % LAST.length]!;
  await batches.add('students', storedRow(AREAS.students, id, { name: `${first} ${last}`, email: `${first}.${last}.${i}@learners.example`.toLowerCase() }, joined));
  const taken = new Set<number>();
  const enrollments = Math.floor(random() * 9);
  const owned: Course[] = [];
  for (let e = 0; e < enrollments && taken.size < courses.length; e++) {
    // Popular courses draw more students: the square skews the pick towards the first ones.
    const pick = Math.floor(random() * random() * courses.length);
    if (taken.has(pick)) continue;
    taken.add(pick);
    const course = courses[pick]!;
    owned.push(course);
    const enrolled = joined + Math.floor(random() * (now - joined));
    const total = course.lessons.length;
    const done = random() < 0.15 ? total : Math.floor(random() * (total + 1) * 0.55);
    const enrollment = `enr_scale_${i}_${e}`;
    const times: number[] = [];
    for (let l = 0, at = enrolled; l < done; l++) times.push((at = Math.min(now, at + Math.floor(random() * 3 * DAY) + 60_000)));
    const last = times[times.length - 1] ?? enrolled;
    const percent = Math.min(100, Math.floor((done * 100) / total));
    // The enrollment is queued before its completions: a flush writes it first.
    await batches.add(
      'enrollments',
      storedRow(AREAS.enrollments, enrollment, { student_id: id, course_id: course.id, progress_percent: percent, completed_at: done === total ? new Date(last).toISOString() : null }, enrolled, last),
    );
    for (const [l, at] of times.entries()) await batches.add('lesson_completions', { enrollment_id: enrollment, lesson_id: course.lessons[l]!, course_id: course.id, completed_at: at });
  }
  const orders = Math.floor(random() * 4);
  for (let o = 0; o < orders; o++) {
    const course = owned[o] ?? courses[Math.floor(random() * courses.length)]!;
    const at = joined + Math.floor(random() * (now - joined));
    const roll = random();
    const status = roll < 0.9 ? 'paid' : roll < 0.95 ? 'pending' : 'refunded';
    await batches.add(
      'orders',
      storedRow(
        AREAS.orders,
        `ord_scale_${i}_${o}`,
        {
          student_id: id,
          items: [{ kind: 'course', id: course.id, price_cents: course.price }],
          total_cents: course.price,
          currency: 'EUR',
          status,
          paid_at: status === 'pending' ? null : new Date(at).toISOString(),
        },
        at,
      ),
    );
  }
}

/**
 * Replaces the school's data with the demo school grown to `students`
 * students (at least the demo's own). Returns the rows written per table.
 */
export async function seedLargeSchool(store: Store, students: number, now = Date.now(), progress?: (written: number) => void): Promise<Record<string, number>> {
  await clearPlatform(store);
  const demo = await seedDemo(store, now);
  const random = sequence(students);
  const start = now - YEARS * 365 * DAY;
  const extraCourses = Math.max(0, Math.round(students / 500) - (demo.courses ?? 0));
  await generatedCourses(store, extraCourses, start, random);
  const courses = await publishedCourses(store);
  const batches = new Batches(store);
  const extra = Math.max(0, students - (demo.students ?? 0));
  for (let i = 0; i < extra; i++) {
    await student(batches, i, courses, start, now, random);
    if (progress && (i + 1) % 10_000 === 0) progress(i + 1);
  }
  await batches.flush();
  await store.optimize();
  return {
    courses: (demo.courses ?? 0) + extraCourses,
    students: (demo.students ?? 0) + extra,
    enrollments: (demo.enrollments ?? 0) + (batches.written.enrollments ?? 0),
    lesson_completions: batches.written.lesson_completions ?? 0,
    orders: (demo.orders ?? 0) + (batches.written.orders ?? 0),
  };
}
