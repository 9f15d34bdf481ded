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
    // A worker keeps the modules it loaded from one test file to the next
    // instead of loading the whole server again for each: the suite spent
    // about 520 s of worker time importing modules and took 901 s; without
    // isolation it imports in 46 s and takes 674 s. Test files hold their
    // state in what they start (servers, stores, temporary directories),
    // never in module variables, so none depends on a fresh module graph.
    isolate: false,
    globalSetup: ['test/helpers/global-setup.ts'],
  },
});
