/**
 * /auth.md tells integrators how webhooks work on this server: every event,
 * the paths, how to verify a signature, and this server's retry schedule and
 * limits as its settings say.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

describe('auth.md: webhooks', () => {
  let server: TestServer;
  let doc: string;
  beforeAll(async () => {
    server = await startTestServer('sqlite', { WEBHOOK_RETRY_SCHEDULE: '500ms,90s,2h', WEBHOOK_TIMEOUT_MS: '4000', WEBHOOK_DISABLE_AFTER_FAILURES: '7' });
    doc = await (await fetch(`${server.issuer}/auth.md`)).text();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('names every event and every operation', () => {
    const section = doc.slice(doc.indexOf('## Webhooks'), doc.indexOf('## Errors'));
    for (const event of ['student.created', 'enrollment.created', 'lesson.completed', 'enrollment.completed', 'order.paid', 'order.refunded', 'course.published', 'form_submission.created']) {
      expect(section).toContain(`\`${event}\``);
    }
    for (const op of [
      'POST /api/v1/webhooks',
      'GET /api/v1/webhooks',
      'GET|PATCH|DELETE /api/v1/webhooks/{id}',
      'GET /api/v1/webhooks/{id}/deliveries',
      'POST /api/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver',
    ]) {
      expect(section).toContain(`\`${op}\``);
    }
    expect(section).toContain('`v1,` and the base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<raw body>`');
  });

  it("states this server's timeout, retry schedule and failures before disabling", () => {
    expect(doc).toContain('Answer 2xx within 4 seconds to accept; anything else is a failed attempt, retried after 500 ms, 1 minute 30 seconds, 2 hours');
    expect(doc).toContain('After 7 deliveries in a row have failed every attempt');
  });
});
