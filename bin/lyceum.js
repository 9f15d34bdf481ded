#!/usr/bin/env node
// The `lyceum` command. Runs the TypeScript sources directly through tsx, so
// `npx lyceum ...` works right after `npm install` with no build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
