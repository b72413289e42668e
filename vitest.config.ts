import { defineConfig } from 'vitest/config';

/**
 * Files that time a few hundred milliseconds of wall clock on purpose (a barge-in's cut on the wall clock): they
 * run last and one at a time, so another file's CPU cannot stretch what they time. Other files assert order
 * ("refused while the first task still runs"), not wall-clock spans.
 */
const wallClock = ['test/agent-barge-in-wall-clock.test.ts'];

/**
 * Files that run with modules of their own (isolated), the others share their worker's modules. These register
 * OpenTelemetry's global tracer, context manager or propagator (the first registration in a process wins), or
 * check what importing Shoal registers (process metrics)...
 */
const ownModules = [
  'test/agent-reply.test.ts',
  'test/agent-service-stt-trace.test.ts',
  'test/agent-session-turns.test.ts',
  'test/agent-trace.test.ts',
  'test/agent-tracing-context.test.ts',
  'test/agent-utterance-state.test.ts',
  'test/client-service-tracing.test.ts',
  'test/client-tracing.test.ts',
  'test/deepgram-stt.test.ts',
  'test/metrics-process.test.ts',
  'test/plugin-openai-declared-tools.test.ts',
  'test/plugin-openai-tools.test.ts',
  'test/plugin-openai.test.ts',
  'test/service-tracing.test.ts',
  'test/service-tts-synthesis.test.ts',
  // ... and these take over 10 s each on two cores (engines, services, child processes): importing the sources
  // once per file costs them little.
  'test/agent-barge-in-engines.test.ts',
  'test/agent-conversation.test.ts',
  'test/agent-hosted-speech.test.ts',
  'test/agent-leak.test.ts',
  'test/browser-demo.test.ts',
  'test/browser-firefox.test.ts',
  'test/compatible-deepgram-keepalive.test.ts',
  'test/compatible-deepgram.test.ts',
  'test/compatible-openai-fleet.test.ts',
  'test/compatible-openai.test.ts',
  'test/engines-asr-isolation.test.ts',
  'test/engines-asr.test.ts',
  'test/engines-vad.test.ts',
  'test/examples-run.test.ts',
  'test/listening-human-speech.test.ts',
  'test/livekit-cli.test.ts',
  'test/package-install.test.ts',
  'test/pharmacy-flow.test.ts',
  'test/readme-library.test.ts',
  'test/reliability.test.ts',
  'test/scenario-broken-agents.test.ts',
  'test/scenario-suites.test.ts',
  'test/service-asr.test.ts',
  'test/service-fleet.test.ts',
  'test/service-store-crash.test.ts',
  'test/talk-cli.test.ts',
  'test/talk-llm-cli.test.ts',
  'test/testing-cli.test.ts',
  'test/testing-runner.test.ts',
  'test/testing-simulated-caller.test.ts',
  'test/transport-agent-app.test.ts',
];

// Most files wait on real time (audio paced as it is spoken, child processes) or decode on one core: two at once on
// two cores. SHOAL_TEST_WORKERS overrides.
const workers = Number(process.env['SHOAL_TEST_WORKERS'] ?? 2);

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default', ['json', { outputFile: 'test-output/vitest-results.json' }]],
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['test/**/*.test.ts'],
          exclude: [...wallClock, ...ownModules],
          maxWorkers: workers,
          // A worker imports the sources once for all the files it runs, not once per file: about half the CPU of
          // these short files. Each file closes what it starts and restores the environment it changes.
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      // Run beside 'shared', on the same workers.
      { extends: true, test: { name: 'own-modules', include: ownModules, maxWorkers: workers, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'alone', include: wallClock, maxWorkers: 1, sequence: { groupOrder: 1 } } },
    ],
  },
});
