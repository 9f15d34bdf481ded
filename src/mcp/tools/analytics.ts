import { z } from 'zod';
import { AnalyticsService } from '../../platform/analytics.ts';
import { formatMoney } from '../format.ts';
import { defineTool } from '../tool.ts';

export const getAnalytics = defineTool({
  name: 'get_analytics',
  toolset: 'analytics',
  title: 'School analytics',
  description: "Enrollments, revenue, active students and lesson and course completions per month or week, with totals, computed from the school's data (same report as GET /api/v1/analytics).",
  scopes: ['analytics:read'],
  readOnly: true,
  input: {
    from: z.iso.date().optional().describe('First day, YYYY-MM-DD (default: 12 months ago)'),
    to: z.iso.date().optional().describe('Last day, YYYY-MM-DD (default: today)'),
    interval: z.enum(['month', 'week']).default('month'),
  },
  async run(ctx, args) {
    const report = await new AnalyticsService(ctx.deps).report({
      interval: args.interval,
      ...(args.from ? { from: args.from } : {}),
      ...(args.to ? { to: args.to } : {}),
    });
    const r = report;
    const lines = [
      `Totals: ${r.totals.students} students, ${r.totals.enrollments} enrollments and ${formatMoney(r.totals.revenue_cents, r.currency)} revenue in the range, ${r.totals.active_subscriptions} active subscriptions.`,
      `Learning: ${r.totals.lessons_completed} lessons and ${r.totals.enrollments_completed} courses completed in the range; average progress ${r.totals.average_progress_percent ?? 0}% of the enrollments made in it.`,
      ...r.revenue.map((p, i) => `${p.period}: ${formatMoney(p.total_cents, r.currency)}, ${r.enrollments[i]?.count ?? 0} enrollments`),
    ];
    return { structured: { ...report }, text: lines.join('\n') };
  },
});
