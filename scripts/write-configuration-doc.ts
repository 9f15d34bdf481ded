import { writeFileSync } from 'node:fs';
import { configurationMarkdown } from '../src/config/configuration-doc.ts';

writeFileSync(new URL('../docs/configuration.md', import.meta.url), configurationMarkdown());
