import type { Config } from '../config/index.ts';
import { API_PREFIX } from '../platform/routes/paths.ts';
import { WEBHOOK_SCOPE } from '../platform/webhooks/subscriptions.ts';
import { eventArea, WEBHOOK_EVENT_TYPES, WEBHOOK_EVENTS } from '../platform/webhooks/events.ts';
import { bullets, code, fence, humanDuration, table } from './markdown.ts';

const wait = (ms: number) => (ms < 1000 ? `${ms} ms` : humanDuration(Math.round(ms / 1000)));

/**
 * /auth.md's webhooks section: how to subscribe, what arrives, and how to
 * verify it; the events come from their declaration and the retry schedule
 * from this server's settings.
 */
export function webhooksSection(config: Pick<Config, 'webhooks'>): string {
  const w = config.webhooks;
  const base = `${API_PREFIX}/webhooks`;
  return [
    `Staff with ${code(WEBHOOK_SCOPE)} subscribe a receiver with ${code(`POST ${base}`)} and \`{"url", "events": [...]}\`; the answer (201) holds \`id\` and the signing \`secret\` (\`whsec_\` and base64), **shown only then**. ${code(`GET ${base}`)}, ${code(`GET|PATCH|DELETE ${base}/{id}`)} (\`enabled\`), the delivery log ${code(`GET ${base}/{id}/deliveries`)} and ${code(`POST ${base}/{id}/deliveries/{delivery_id}/redeliver`)} (sends a delivery again now) need ${code(WEBHOOK_SCOPE)} too, reading included: a receiver's URL often holds a secret. A receiver gets each event's record whole, so subscribing to an event (or changing the URL of a subscription to it) also needs the read scope of what it carries, in the table below; without it the answer is 403 \`insufficient_scope\` naming the scopes. The MCP tools \`list_webhooks\`, \`create_webhook\` and \`delete_webhook\` do the same; while a call shows learners by pseudonyms, \`create_webhook\` refuses the events that carry learners' names and emails.`,
    table(['Event', 'When', 'Needs'], WEBHOOK_EVENT_TYPES.map((type) => [code(type), WEBHOOK_EVENTS[type].when, code(eventArea(type).readScope)])),
    'Each delivery is a POST with the JSON body `{"type": "<event>", "timestamp": "<ISO 8601>", "data": {...the record, as the API shows it...}}`, signed the Standard Webhooks way:',
    bullets([
      '`webhook-id`: the event’s id (`msg_…`), the same on every attempt: use it to ignore a repeat.',
      '`webhook-timestamp`: the attempt’s time, Unix seconds; refuse one more than 5 minutes from your clock.',
      '`webhook-signature`: `v1,` and the base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<raw body>`, keyed with the base64-decoded part of the secret after `whsec_` (space-separated if ever there are several).',
    ]),
    'Verify the raw body before parsing it, with any Standard Webhooks library, e.g. in Node.js:',
    fence('js', `import { Webhook } from 'standardwebhooks';\nconst payload = new Webhook(process.env.LYCEUM_WEBHOOK_SECRET).verify(rawBody, {\n  'webhook-id': req.headers['webhook-id'],\n  'webhook-timestamp': req.headers['webhook-timestamp'],\n  'webhook-signature': req.headers['webhook-signature'],\n}); // throws when the signature or the time is wrong`),
    bullets([
      `Answer 2xx within ${wait(w.timeoutMs)} to accept; anything else is a failed attempt, retried after ${w.retryScheduleMs.map(wait).join(', ')} (each up to a tenth longer); then the delivery is failed.`,
      `Delivery is at least once: after a crash an event may arrive twice with the same \`webhook-id\`. Order is not guaranteed.`,
      `After ${w.disableAfter} deliveries in a row have failed every attempt, the subscription is disabled (\`enabled\` false, \`disabled_reason\` says why); \`PATCH\` \`{"enabled": true}\` turns it back on, and events that happen while it is disabled are not kept for it.`,
      `Receivers must be https at a public address${w.allowHttp === 'loopback' ? ', or plain http on a loopback address (this server allows it: WEBHOOK_HTTP_LOOPBACK)' : ' (plain http is refused, even on loopback: WEBHOOK_HTTP_LOOPBACK)'}; private addresses are refused unless the operator allows the host (WEBHOOK_ALLOW_HOSTS), and every failure to reach a host reads alike. Redirects are not followed.`,
    ]),
  ].join('\n\n');
}
