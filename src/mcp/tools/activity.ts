import { z } from 'zod';
import { ActivityLog, activityFilters, type ActivityView } from '../../platform/activity/activity-log.ts';
import { ACTIVITY_SCOPE } from '../../platform/activity/activity-routes.ts';
import { LIST_DEFAULT, LIST_MAX } from './records.ts';
import { defineTool } from '../tool.ts';

/** "2026-11-29 06:40:12 sign_in" and so on: one entry a line. */
function line(v: ActivityView): string {
  const who = v.client ? `${v.client.name ?? 'an unnamed app'} (${v.client.id}, ${v.client.kind.replace('_', ' ')})` : 'in the browser';
  const what = v.record ? ` ${v.record.type} ${v.record.id}` : '';
  const fields = v.fields.length ? `: ${v.fields.join(', ')}` : '';
  return `${v.at.slice(0, 19).replace('T', ' ')} ${v.event}${what}${fields}, user ${v.user_id ?? 'unknown'}, ${who} via ${v.via} ${v.operation}`;
}

export const listActivity = defineTool({
  name: 'list_activity',
  toolset: 'site',
  title: 'Activity log',
  description:
    'Who did what, newest first: every write through the API or MCP, with the app, the operation or tool and the fields set, and every sign-in, consent, disconnection, password change and revocation (as GET /api/v1/activity). Pass next_cursor back as cursor for more.',
  scopes: [ACTIVITY_SCOPE],
  readOnly: true,
  input: {
    ...activityFilters.shape,
    limit: z.number().int().min(1).max(LIST_MAX).default(LIST_DEFAULT),
    cursor: z.string().max(200).optional().describe('next_cursor of the previous answer'),
  },
  async run(ctx, { limit, cursor, ...filters }) {
    const page = await new ActivityLog(ctx.deps).list(filters, limit, cursor);
    const text = page.data.length ? page.data.map(line).join('\n') : 'No activity matches.';
    return { structured: { ...page }, text: page.next_cursor ? `${text}\nMore: pass cursor ${page.next_cursor}.` : text };
  },
});
