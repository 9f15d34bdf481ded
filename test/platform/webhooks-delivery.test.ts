/**
 * Webhook delivery over real HTTP on each store, to a real receiver on
 * 127.0.0.1 that verifies every signature with the `standardwebhooks`
 * package: each event with an emitter fires once with the Standard Webhooks
 * payload; a change that is rolled back fires nothing; failed attempts are
 * retried on the (shrunk) schedule; a subscription is disabled after
 * repeated failure; the delivery log and redelivery work through the API.
 */
import { createHmac } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AREAS } from '../../src/platform/areas.ts';
import { purgeOnce } from '../../src/cli/purge.ts';
import { RecordService } from '../../src/platform/records.ts';
import { retryAt } from '../../src/platform/webhooks/delivery-worker.ts';
import { startFlowServer, type FlowServer } from '../helpers/flow.ts';
import { api, expectError, marker, tokenSource } from '../helpers/records.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { startReceiver, type Received, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

const ALL_EVENTS = ['student.created', 'enrollment.created', 'lesson.completed', 'enrollment.completed', 'order.paid', 'order.refunded', 'course.published', 'form_submission.created'];

describe('the retry schedule', () => {
  it("attempt n waits the schedule's n-th wait, plus up to a tenth; none after the last", () => {
    const schedule = [10_000, 60_000, 300_000];
    expect(retryAt(schedule, 1, 1000, () => 0)).toBe(11_000);
    expect(retryAt(schedule, 2, 1000, () => 0)).toBe(61_000);
    expect(retryAt(schedule, 3, 1000, () => 0.999)).toBe(1000 + Math.round(300_000 * 1.0999));
    expect(retryAt(schedule, 4, 1000, () => 0)).toBeNull();
  });
});

describe.each(STORE_KINDS)('webhook delivery (%s)', (kind) => {
  let server: FlowServer;
  let token: (scope: string) => Promise<string>;
  let receiver: WebhookReceiver;
  let records: RecordService;
  const subscriptions: string[] = [];

  beforeAll(async () => {
    server = await startFlowServer(kind, {
      WEBHOOK_RETRY_SCHEDULE: '100ms,100ms',
      WEBHOOK_POLL_INTERVAL_MS: '25',
      WEBHOOK_DISABLE_AFTER_FAILURES: '2',
      WEBHOOK_TIMEOUT_MS: '2000',
    });
    token = tokenSource(server);
    records = new RecordService(server.deps);
  });
  afterAll(async () => {
    await server?.stop();
  });
  afterEach(async () => {
    // Each test's subscriptions go, so the next test's receiver sees only its own.
    for (const id of subscriptions.splice(0)) await api(server.issuer, 'DELETE', `/webhooks/${id}`, { token: await owner() });
    await receiver?.close();
  });

  const owner = () => token('school:write students:read students:write courses:read courses:write orders:read forms:read');

  async function subscribe(events: string[] = ALL_EVENTS): Promise<{ id: string; secret: string }> {
    receiver = await startReceiver();
    const res = await api(server.issuer, 'POST', '/webhooks', { token: await owner(), body: { url: receiver.url, events } });
    expect(res.status, res.text).toBe(201);
    receiver.secret = String(res.json.secret);
    subscriptions.push(String(res.json.id));
    return { id: String(res.json.id), secret: receiver.secret };
  }

  const ofType = (type: string) => (r: Received) => r.payload?.type === type;

  async function deliveries(id: string) {
    const res = await api(server.issuer, 'GET', `/webhooks/${id}/deliveries`, { token: await owner() });
    expect(res.status, res.text).toBe(200);
    return res.data;
  }

  async function until<T>(what: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 10_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const v = await what();
      if (ok(v)) return v;
      if (Date.now() > deadline) throw new Error(`timed out: ${JSON.stringify(v)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it('student.created carries the record as the API shows it, signed the Standard Webhooks way', async () => {
    const { secret } = await subscribe(['student.created']);
    const created = await api(server.issuer, 'POST', '/students', { token: await owner(), body: { name: 'Ada', email: `${marker()}@example.test` } });
    expect(created.status, created.text).toBe(201);
    const [got] = await receiver.waitFor(1, ofType('student.created'));
    expect(got!.payload).toEqual({ type: 'student.created', timestamp: created.json.created_at, data: created.json });
    expect(got!.id).toMatch(/^msg_/);
    // By hand, as the Standard Webhooks text states it: HMAC-SHA256 over "id.timestamp.body" with the
    // base64-decoded secret (after whsec_), base64, in webhook-signature as "v1,<signature>".
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key).update(`${got!.id}.${got!.timestamp}.${got!.body}`).digest('base64');
    expect(got!.signature.split(' ')).toContain(`v1,${expected}`);
    expect(Math.abs(Number(got!.timestamp) - Date.now() / 1000)).toBeLessThan(60);
  });

  it('every event with an emitter fires once, only to subscriptions that asked for it', async () => {
    await subscribe(ALL_EVENTS.filter((e) => e !== 'order.refunded'));
    const t = await owner();
    const student = await api(server.issuer, 'POST', '/students', { token: t, body: { name: 'Grace', email: `${marker()}@example.test` } });
    const course = await api(server.issuer, 'POST', '/courses', { token: t, body: { title: `Course ${marker()}`, status: 'draft' } });
    const enrollment = await api(server.issuer, 'POST', '/enrollments', { token: t, body: { student_id: student.json.id, course_id: course.json.id } });
    expect(enrollment.status, enrollment.text).toBe(201);
    const published = await api(server.issuer, 'PATCH', `/courses/${String(course.json.id)}`, { token: t, body: { status: 'published' } });
    expect(published.status, published.text).toBe(200);
    // Already published: no second course.published.
    await api(server.issuer, 'PATCH', `/courses/${String(course.json.id)}`, { token: t, body: { status: 'published', title: 'Renamed' } });
    // Orders and form submissions have no API writes: the one service behind the API makes them.
    const order = await records.create(AREAS.orders, { student_id: student.json.id, total_cents: 1200, currency: 'USD', status: 'pending' });
    const paid = await records.update(AREAS.orders, String(order.id), { status: 'paid' });
    await records.update(AREAS.orders, String(order.id), { status: 'refunded' });
    const form = await records.create(AREAS.forms, { title: 'Contact' });
    const submission = await records.create(AREAS.form_submissions, { form_id: form.id, data: { message: 'hi' } });
    const got = await receiver.waitFor(5);
    await new Promise((r) => setTimeout(r, 300));
    const byType = Object.fromEntries(receiver.received.map((r) => [r.payload!.type, r.payload!.data]));
    expect(receiver.received.map((r) => r.payload!.type).sort()).toEqual(['course.published', 'enrollment.created', 'form_submission.created', 'order.paid', 'student.created']);
    expect(got.every((r) => r.verified && r.status === 204)).toBe(true);
    expect(byType['student.created']).toEqual(student.json);
    expect(byType['enrollment.created']).toEqual(enrollment.json);
    expect(byType['course.published']).toEqual(published.json);
    expect(byType['order.paid']).toEqual(paid);
    expect(byType['form_submission.created']).toEqual(submission);
  });

  it("lesson.completed fires once per lesson completed, and enrollment.completed with the last one, in the completion's transaction", async () => {
    await subscribe(['lesson.completed', 'enrollment.completed']);
    const t = await token('school:write students:read students:write courses:read courses:write curriculum:write orders:read forms:read');
    const student = await api(server.issuer, 'POST', '/students', { token: t, body: { name: 'Lin', email: `${marker()}@example.test` } });
    const course = await api(server.issuer, 'POST', '/courses', { token: t, body: { title: `Course ${marker()}`, status: 'published' } });
    const section = await api(server.issuer, 'POST', '/curriculum/sections', { token: t, body: { course_id: course.json.id, title: 'One' } });
    const lessons = [];
    for (const title of ['First', 'Second']) {
      const lesson = await api(server.issuer, 'POST', '/curriculum/lessons', { token: t, body: { section_id: section.json.id, title } });
      expect(lesson.status, lesson.text).toBe(201);
      lessons.push(String(lesson.json.id));
    }
    const enrollment = await api(server.issuer, 'POST', '/enrollments', { token: t, body: { student_id: student.json.id, course_id: course.json.id } });
    const enrollmentId = String(enrollment.json.id);
    const complete = (lessonId: string) => api(server.issuer, 'PUT', `/enrollments/${enrollmentId}/lessons/${lessonId}/completion`, { token: t });

    expect((await complete(lessons[0]!)).status).toBe(200);
    // Marking it again changes nothing and fires nothing.
    expect((await complete(lessons[0]!)).status).toBe(200);
    const [first] = await receiver.waitFor(1, ofType('lesson.completed'));
    expect(first!.payload!.data).toEqual({
      enrollment_id: enrollmentId,
      lesson_id: lessons[0],
      course_id: course.json.id,
      student_id: student.json.id,
      completed_at: expect.stringMatching(/Z$/),
      progress_percent: 50,
    });

    expect((await complete(lessons[1]!)).status).toBe(200);
    const [done] = await receiver.waitFor(1, ofType('enrollment.completed'));
    const now = await api(server.issuer, 'GET', `/enrollments/${enrollmentId}`, { token: t });
    expect(done!.payload!.data).toEqual(now.json);
    expect(now.json).toMatchObject({ progress_percent: 100, completed_at: expect.stringMatching(/Z$/) });
    await new Promise((r) => setTimeout(r, 300));
    // Deliveries go out in parallel: their order is not promised, their number is.
    const seen = receiver.received.map((r) => `${String(r.payload!.type)} ${(r.payload!.data as { lesson_id?: string }).lesson_id ?? ''}`).sort();
    expect(seen).toEqual(['enrollment.completed ', `lesson.completed ${lessons[0]}`, `lesson.completed ${lessons[1]}`].sort());
    expect(receiver.received.every((r) => r.verified)).toBe(true);
  });

  it('a change that is rolled back fires nothing; a subscription made later gets nothing earlier', async () => {
    const t = await owner();
    const email = `${marker()}@example.test`;
    await api(server.issuer, 'POST', '/students', { token: t, body: { name: 'Before', email: `${marker()}@example.test` } });
    await subscribe(['student.created']);
    expect((await api(server.issuer, 'POST', '/students', { token: t, body: { name: 'One', email } })).status).toBe(201);
    // The same email again: 409, and its insert (with its event) is rolled back.
    expectError(await api(server.issuer, 'POST', '/students', { token: t, body: { name: 'Two', email } }), 409, 'conflict');
    await receiver.waitFor(1);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.received.map((r) => r.payload!.data.name)).toEqual(['One']);
  });

  it('a failed attempt is retried with the same webhook-id until the receiver answers 2xx; the log shows it', async () => {
    const { id } = await subscribe(['student.created']);
    receiver.answer = (_r, n) => (n < 2 ? 500 : 200);
    await api(server.issuer, 'POST', '/students', { token: await owner(), body: { name: 'Retry', email: `${marker()}@example.test` } });
    await receiver.waitFor(3);
    expect(receiver.received.map((r) => r.status)).toEqual([500, 500, 200]);
    expect(new Set(receiver.received.map((r) => r.id)).size).toBe(1);
    const [log] = await until(
      () => deliveries(id),
      (d) => d[0]?.status === 'succeeded',
    );
    expect(log).toEqual({
      id: expect.stringMatching(/^whd_/),
      event_id: receiver.received[0]!.id,
      event_type: 'student.created',
      status: 'succeeded',
      attempts: 3,
      next_attempt_at: null,
      last_attempt_at: expect.any(String),
      last_status_code: 200,
      last_duration_ms: expect.any(Number),
      last_error: null,
      created_at: expect.any(String),
    });
  });

  it('a subscription is disabled after repeated failure, with the reason; redelivery sends again once it is back', async () => {
    const { id } = await subscribe(['student.created']);
    receiver.answer = () => 503;
    const t = await owner();
    await api(server.issuer, 'POST', '/students', { token: t, body: { name: 'F1', email: `${marker()}@example.test` } });
    await api(server.issuer, 'POST', '/students', { token: t, body: { name: 'F2', email: `${marker()}@example.test` } });
    // Two deliveries, each one attempt and the schedule's two retries, all refused.
    const sub = await until(
      async () => (await api(server.issuer, 'GET', `/webhooks/${id}`, { token: t })).json,
      (s) => s.enabled === false,
    );
    expect(sub.disabled_reason).toBe('2 deliveries in a row failed after every retry');
    expect(receiver.received).toHaveLength(6);
    const log = await deliveries(id);
    expect(log.map((d) => [d.status, d.attempts, d.last_status_code, d.last_error])).toEqual([
      ['failed', 3, 503, 'the receiver answered 503'],
      ['failed', 3, 503, 'the receiver answered 503'],
    ]);
    // Disabled: a new event is not kept for it.
    await api(server.issuer, 'POST', '/students', { token: t, body: { name: 'F3', email: `${marker()}@example.test` } });
    await new Promise((r) => setTimeout(r, 300));
    expect(await deliveries(id)).toHaveLength(2);
    // Back on, the receiver fixed: a redelivery goes out now with the same webhook-id.
    receiver.answer = () => 204;
    expect((await api(server.issuer, 'PATCH', `/webhooks/${id}`, { token: t, body: { enabled: true } })).json.enabled).toBe(true);
    const again = await api(server.issuer, 'POST', `/webhooks/${id}/deliveries/${String(log[1]!.id)}/redeliver`, { token: t });
    expect(again.status, again.text).toBe(202);
    expect(again.json).toMatchObject({ event_id: log[1]!.event_id, status: 'pending', attempts: 0 });
    const [redelivered] = await receiver.waitFor(1, (r) => r.status === 204);
    expect(redelivered!.id).toBe(log[1]!.event_id);
    expectError(await api(server.issuer, 'POST', `/webhooks/${id}/deliveries/whd_unknown/redeliver`, { token: t }), 404, 'not_found');
  });

  it('a receiver that cannot be reached is a failed attempt, retried, then failed', async () => {
    const { id } = await subscribe(['student.created']);
    await receiver.close();
    await api(server.issuer, 'POST', '/students', { token: await owner(), body: { name: 'Down', email: `${marker()}@example.test` } });
    const [d] = await until(
      () => deliveries(id),
      (l) => l[0]?.status === 'failed',
    );
    expect(d).toMatchObject({ attempts: 3, last_status_code: null, last_error: expect.stringMatching(/^network: /) });
  });

  it('the purge deletes finished deliveries past WEBHOOK_LOG_DAYS, never pending ones', async () => {
    const { id } = await subscribe(['student.created']);
    receiver.answer = (r) => (r.payload?.data.name === 'Hold' ? null : 204);
    const t = await owner();
    await api(server.issuer, 'POST', '/students', { token: t, body: { name: 'Done', email: `${marker()}@example.test` } });
    await api(server.issuer, 'POST', '/students', { token: t, body: { name: 'Hold', email: `${marker()}@example.test` } });
    await receiver.waitFor(2);
    const now = server.deps.now();
    // WEBHOOK_LOG_DAYS is 30 here: nothing is that old. (Moving the clock a month would purge the test's tokens too.)
    expect((await purgeOnce(server.deps.store, server.deps.config, now + 1000)).webhookDeliveries).toBe(0);
    const keptOneDay = { ...server.deps.config, webhooks: { ...server.deps.config.webhooks, logDays: 1 } };
    expect((await purgeOnce(server.deps.store, keptOneDay, now + 86_400_000 + 1000)).webhookDeliveries).toBe(1);
    const left = await deliveries(id);
    expect(left.map((d) => [d.status, d.event_id])).toEqual([['pending', receiver.received.find((r) => r.payload?.data.name === 'Hold')!.id]]);
  });

  it('the address is checked again at delivery: a receiver that is not public by then is a failed attempt', async () => {
    // Written straight to the store, as if the name had resolved to a public address at creation.
    const id = `wh_${marker()}`;
    const now = server.deps.now();
    await server.deps.store.webhooks.create({
      id,
      url: 'https://10.0.0.1/hooks',
      events: ['student.created'],
      description: null,
      sealedSecret: await server.deps.keys.sealSecret('whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'),
      enabled: true,
      disabledReason: null,
      failedDeliveries: 0,
      createdAt: now,
      updatedAt: now,
    });
    subscriptions.push(id);
    await api(server.issuer, 'POST', '/students', { token: await owner(), body: { name: 'Private', email: `${marker()}@example.test` } });
    const [d] = await until(
      () => deliveries(id),
      (l) => l[0]?.status === 'failed',
    );
    expect(d).toMatchObject({ attempts: 3, last_status_code: null, last_error: 'forbidden_address: 10.0.0.1 resolves to an address that is not public' });
  });

  it('a receiver that hangs holds up only its own delivery: the others go on meanwhile', async () => {
    const slow = await startReceiver();
    const fast = await startReceiver();
    slow.answer = () => null;
    try {
      const ids: string[] = [];
      for (const r of [slow, fast]) {
        const res = await api(server.issuer, 'POST', '/webhooks', { token: await owner(), body: { url: r.url, events: ['student.created'] } });
        r.secret = String(res.json.secret);
        ids.push(String(res.json.id));
        subscriptions.push(String(res.json.id));
      }
      await api(server.issuer, 'POST', '/students', { token: await owner(), body: { name: 'First', email: `${marker()}@example.test` } });
      await slow.waitFor(1);
      await api(server.issuer, 'POST', '/students', { token: await owner(), body: { name: 'Second', email: `${marker()}@example.test` } });
      await fast.waitFor(2);
      // The hanging attempt is still under way (WEBHOOK_TIMEOUT_MS is 2 s): nothing recorded of it yet.
      const hanging = (await deliveries(ids[0]!)).at(-1);
      expect(hanging).toMatchObject({ status: 'pending', attempts: 1, last_attempt_at: null });
    } finally {
      await slow.close();
      await fast.close();
    }
  });
});
