/**
 * Small Markdown builders for the generated documents (/auth.md, /pricing.md,
 * /llms.txt). Text from the store is untrusted: escapeText keeps it from
 * turning into links, HTML or table structure.
 */

/** Inline code. Backticks inside are doubled around so the span never breaks. */
export const code = (text: string): string => (text.includes('`') ? `\`\` ${text} \`\`` : `\`${text}\``);

/**
 * Untrusted text as inline Markdown: one line, Markdown and HTML punctuation
 * escaped (CommonMark §2.4 backslash escapes), so it renders as written.
 */
export function escapeText(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[\\`*_[\]<>|~&]/g, (c) => `\\${c}`);
}

/** A table cell built by the generators (may contain inline code): only pipes and line breaks need care. */
const cell = (text: string): string => text.replace(/\r?\n/g, ' ').replace(/(?<!\\)\|/g, '\\|');

/** A GitHub-flavoured Markdown table. */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.map(cell).join(' | ')} |`;
  return [line(headers), line(headers.map(() => '---')), ...rows.map(line)].join('\n');
}

/** "a, b and c": the items joined by `sep`, the last one by `last`. */
export const joinList = (items: readonly string[], sep = ', ', last = ' and '): string => (items.length < 2 ? items.join('') : `${items.slice(0, -1).join(sep)}${last}${items.at(-1)}`);

export const bullets = (items: readonly string[]): string => items.map((i) => `- ${i}`).join('\n');

export const fence = (lang: string, body: string): string => `\`\`\`${lang}\n${body.replace(/\n+$/, '')}\n\`\`\``;

const UNITS: [number, string][] = [
  [86_400, 'day'],
  [3600, 'hour'],
  [60, 'minute'],
  [1, 'second'],
];

/** 2592000 → "30 days", 90 → "1 minute 30 seconds", 0 → "0 seconds". */
export function humanDuration(seconds: number): string {
  if (seconds === 0) return '0 seconds';
  const parts: string[] = [];
  let rest = seconds;
  for (const [size, unit] of UNITS) {
    const n = Math.floor(rest / size);
    if (n > 0) {
      parts.push(`${n} ${unit}${n === 1 ? '' : 's'}`);
      rest -= n * size;
    }
  }
  return parts.join(' ');
}

/** "3600 s (1 hour)"; just "60 s" would hide the scale of the larger ones. */
export const duration = (seconds: number): string => (seconds < 60 ? `${seconds} s` : `${seconds} s (${humanDuration(seconds)})`);
