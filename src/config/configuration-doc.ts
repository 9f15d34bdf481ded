import { SETTINGS } from './defaults.ts';

const cell = (s: string) => s.replace(/\|/g, '\\|');

/** docs/configuration.md, generated from the settings table (npm run docs:config writes it; a test compares). */
export function configurationMarkdown(): string {
  return [
    '# Configuration',
    '',
    'Lyceum reads its settings from environment variables and validates them at start: a bad value stops the',
    'start with one line naming the variable and why. This file is generated from `src/config/defaults.ts`',
    '(`npm run docs:config`); `npx lyceum help` prints the same table.',
    '',
    '| Variable | Default | Meaning |',
    '| --- | --- | --- |',
    ...SETTINGS.map((s) => `| \`${s.env}\` | ${cell(s.default)} | ${cell(s.description)} |`),
    '',
  ].join('\n');
}
