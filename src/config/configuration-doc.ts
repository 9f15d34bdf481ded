import { defaultText, SETTINGS } from './defaults.ts';

const cell = (s: string) => s.replace(/\|/g, '\\|');

/** docs/configuration.md, generated from the settings table (npm run docs:config writes it; a test compares). */
export function configurationMarkdown(): string {
  return [
    '# Configuration',
    '',
    'Lyceum reads its settings from environment variables and validates them at start: a bad value stops the',
    'start with one line naming the variable and why. This file is generated from `src/config/defaults.ts`',
    '(`npm run docs:config`); `npx lyceum help` prints the same table. An empty variable counts as unset.',
    '',
    '| Variable | Default | Accepted | Meaning |',
    '| --- | --- | --- | --- |',
    ...SETTINGS.map((s) => `| \`${s.name}\` | ${cell(defaultText(s))} | ${cell(s.parse.accepts)} | ${cell(s.description)} |`),
    '',
  ].join('\n');
}

/** The settings part of `lyceum help`: one line per setting, starting with its name. */
export function settingsHelp(): string {
  const width = Math.max(...SETTINGS.map((s) => s.name.length)) + 1;
  return SETTINGS.map((s) => `  ${s.name.padEnd(width)} ${s.description} Accepted: ${s.parse.accepts}. Default: ${defaultText(s)}`).join('\n');
}
