import { defineConfig } from 'vitest/config';

/**
 * Files that time a few hundred milliseconds of wall clock on purpose (a barge-in's cut on the wall clock, the
 * browser transport's real-time pacing): they run last and one at a time, so another file's CPU cannot stretch
 * what they time. Other files assert order ("refused while the first task still runs"), not wall-clock spans.
 */
const wallClock = ['test/agent-barge-in-wall-clock.test.ts', 'test/transport-browser-protocol.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default', ['json', { outputFile: 'test-output/vitest-results.json' }]],
    projects: [
      // Most files wait on real time (audio paced as it is spoken, child processes) or decode on one core: two at
      // once on two cores. SHOAL_TEST_WORKERS overrides.
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['test/**/*.test.ts'],
          exclude: wallClock,
          maxWorkers: Number(process.env['SHOAL_TEST_WORKERS'] ?? 2),
          sequence: { groupOrder: 0 },
        },
      },
      { extends: true, test: { name: 'alone', include: wallClock, maxWorkers: 1, sequence: { groupOrder: 1 } } },
    ],
  },
});
