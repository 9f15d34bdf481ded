import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most test files spend much of their time waiting on child processes, the
    // database and timers rather than computing, so one worker more than there
    // are cores keeps the cores busy: on two cores the suite took 376 s with
    // three workers against 572 s with two.
    maxWorkers: availableParallelism() + 1,
    globalSetup: ['test/helpers/global-setup.ts'],
  },
});
