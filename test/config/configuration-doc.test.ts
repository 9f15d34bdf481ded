import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configurationMarkdown } from '../../src/config/configuration-doc.ts';

describe('docs/configuration.md', () => {
  it('is exactly what the settings table generates (run npm run docs:config after changing a setting)', () => {
    expect(readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8')).toBe(configurationMarkdown());
  });
});
