import { defineConfig } from 'vitest/config';

/**
 * Files that run with modules of their own (isolated); the others share their worker's modules. These register
 * OpenTelemetry's global tracer, context manager or propagator (the first registration in a process wins), check
 * what importing Shoal registers or loads (process metrics, pocketsphinx's library), or count the process's handles.
 */
const ownModules = [
  'test/agent/agent-reply.test.ts',
  'test/agent/agent-service-stt-trace.test.ts',
  'test/agent/agent-session-turns.test.ts',
  'test/agent/agent-trace.test.ts',
  'test/agent/agent-tracing-context.test.ts',
  'test/agent/agent-utterance-state.test.ts',
  'test/client/client-service-tracing.test.ts',
  'test/client/client-tracing.test.ts',
  'test/plugins/deepgram-stt.test.ts',
  'test/metrics/metrics-process.test.ts',
  'test/plugins/plugin-openai-declared-tools.test.ts',
  'test/plugins/plugin-openai-tools.test.ts',
  'test/plugins/plugin-openai.test.ts',
  'test/service/service-tracing.test.ts',
  'test/service/service-tts-synthesis.test.ts',
  'test/agent/agent-hosted-speech.test.ts',
  'test/agent/agent-leak.test.ts',
];

// The suite is bound by CPU (engines, child processes): two files at once on two cores; three took longer.
// SHOAL_TEST_WORKERS overrides.
const workers = Number(process.env['SHOAL_TEST_WORKERS'] ?? 2);

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // The `shoal` processes, examples and engine worker threads the tests start run a compiled copy of the sources
    // made once per run.
    globalSetup: ['test/support/compiled-tree.ts'],
    setupFiles: ['test/support/workers-from-copy.ts'],
    reporters: ['default', ['json', { outputFile: 'test-output/vitest-results.json' }]],
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['test/**/*.test.ts'],
          exclude: ownModules,
          maxWorkers: workers,
          // A worker imports the sources once for all the files it runs, not once per file. Each file closes what
          // it starts and restores the environment it changes.
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      // Run beside 'shared', on the same workers.
      { extends: true, test: { name: 'own-modules', include: ownModules, maxWorkers: workers, sequence: { groupOrder: 0 } } },
    ],
  },
});
