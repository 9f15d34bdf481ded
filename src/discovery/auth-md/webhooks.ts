import type { Config } from '../../config/index.ts';
import { API_PREFIX } from '../../platform/routes/paths.ts';
import { WEBHOOK_SCOPE } from '../../platform/webhooks/subscriptions.ts';
import { eventArea, WEBHOOK_EVENT_TYPES, WEBHOOK_EVENTS } from '../../platform/webhooks/events.ts';
import { code, humanDuration, table } from '../markdown.ts';

const wait = (ms: number) => (ms < 1000 ? `${ms} ms` : humanDuration(Math.round(ms / 1000)));

/**
 * The values of the webhooks section (template.md): the paths, the events
 * from their declaration, and the retry schedule from this server's settings.
 */
export function webhooksView(config: Pick<Config, 'webhooks'>) {
  const w = config.webhooks;
  const base = `${API_PREFIX}/webhooks`;
  return {
    scope: WEBHOOK_SCOPE,
    post: `POST ${base}`,
    list: `GET ${base}`,
    one: `GET|PATCH|DELETE ${base}/{id}`,
    deliveries: `GET ${base}/{id}/deliveries`,
    redeliver: `POST ${base}/{id}/deliveries/{delivery_id}/redeliver`,
    events: table(
      ['Event', 'When', 'Needs'],
      WEBHOOK_EVENT_TYPES.map((type) => [code(type), WEBHOOK_EVENTS[type].when, code(eventArea(type).readScope)]),
    ),
    timeout: wait(w.timeoutMs),
    retries: w.retryScheduleMs.map(wait).join(', '),
    httpOnLoopback: w.allowHttp === 'loopback',
  };
}
