/** Readable text forms of records for MCP tool results. */

export function formatMoney(cents: unknown, currency: string): string {
  const n = Number(cents ?? 0);
  if (n === 0) return 'Free';
  return new Intl.NumberFormat('en', { style: 'currency', currency }).format(n / 100);
}

export function bulletList(items: Record<string, unknown>[], line: (item: Record<string, unknown>) => string, nextCursor?: string): string {
  if (items.length === 0) return 'Nothing found.';
  const lines = items.map((i) => `- ${line(i)}`);
  if (nextCursor) lines.push(`(more: call again with cursor "${nextCursor}")`);
  return lines.join('\n');
}
