/**
 * The analytics report's completion figures over real HTTP on each store:
 * lessons completed and enrollments completed per period, and the average
 * progress of the enrollments created in the range.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_KINDS } from '../helpers/stores.ts';
import { marker, startRecordsServer, type RecordsServer } from '../helpers/records.ts';

describe.each(STORE_KINDS)('completion figures in the analytics report on %s', (kind) => {
  let s: RecordsServer;

  beforeAll(async () => {
    s = await startRecordsServer(kind);
  });

  afterAll(async () => {
    await s?.server.close();
  });

  it('counts lesson completions by time, completed enrollments, and the average progress', async () => {
    const course = String((await s.owner('POST', '/courses', { title: 'Stats', status: 'published' })).json.id);
    const section = String((await s.owner('POST', '/curriculum/sections', { course_id: course, title: 'S' })).json.id);
    const lessons = [];
    for (const title of ['A', 'B']) lessons.push(String((await s.owner('POST', '/curriculum/lessons', { section_id: section, title })).json.id));
    const enroll = async () => {
      const student = String((await s.owner('POST', '/students', { name: 'N', email: `${marker()}@stats.test` })).json.id);
      return String((await s.owner('POST', '/enrollments', { student_id: student, course_id: course })).json.id);
    };
    const [done, half, none] = [await enroll(), await enroll(), await enroll()];
    for (const l of lessons) await s.owner('PUT', `/enrollments/${done}/lessons/${l}/completion`);
    await s.owner('PUT', `/enrollments/${half}/lessons/${lessons[0]!}/completion`);
    await s.owner('PUT', `/enrollments/${half}/lessons/${lessons[1]!}/completion`);
    // An undone completion no longer counts, and the enrollment it completed is no longer complete.
    await s.owner('DELETE', `/enrollments/${half}/lessons/${lessons[1]!}/completion`);
    expect(none).toMatch(/^enr_/);

    const today = new Date(s.server.deps.now()).toISOString().slice(0, 10);
    const res = await s.owner('GET', `/analytics?from=${today}&to=${today}`);
    expect(res.status, res.text).toBe(200);
    const period = today.slice(0, 7);
    expect(res.json.lessons_completed).toEqual([{ period, count: 3 }]);
    expect(res.json.enrollments_completed).toEqual([{ period, count: 1 }]);
    // (100 + 50 + 0) / 3 = 50.
    expect(res.json.totals).toMatchObject({ enrollments: 3, lessons_completed: 3, enrollments_completed: 1, average_progress_percent: 50 });

    const before = await s.owner('GET', '/analytics?from=2020-01-01&to=2020-01-31');
    expect(before.json.lessons_completed).toEqual([{ period: '2020-01', count: 0 }]);
    expect(before.json.totals).toMatchObject({ lessons_completed: 0, enrollments_completed: 0, average_progress_percent: null });
  });
});
