import { defineConfig } from 'vitest/config';

/**
 * Files that time a few hundred milliseconds of wall clock on purpose (a barge-in's cut on the wall clock): they
 * run last and one at a time, so another file's CPU cannot stretch what they time. Other files assert order
 * ("refused while the first task still runs"), not wall-clock spans.
 */
const wallClock = ['test/agent/agent-barge-in-wall-clock.test.ts'];

/**
 * Files that run with modules of their own (isolated), the others share their worker's modules. These register
 * OpenTelemetry's global tracer, context manager or propagator (the first registration in a process wins), or
 * check what importing Shoal registers (process metrics)...
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
  // ... and these take over 10 s each on two cores (engines, services, child processes): importing the sources
  // once per file costs them little.
  'test/agent/agent-barge-in-engines.test.ts',
  'test/agent/agent-conversation.test.ts',
  'test/agent/agent-hosted-speech.test.ts',
  'test/agent/agent-leak.test.ts',
  'test/transports/browser-demo.test.ts',
  'test/transports/browser-firefox.test.ts',
  'test/service/compatible-deepgram-keepalive.test.ts',
  'test/service/compatible-deepgram.test.ts',
  'test/service/compatible-openai-fleet.test.ts',
  'test/service/compatible-openai.test.ts',
  'test/engines/engines-asr-isolation.test.ts',
  'test/engines/engines-asr.test.ts',
  'test/engines/engines-vad.test.ts',
  'test/project/examples-run.test.ts',
  'test/engines/listening-human-speech.test.ts',
  'test/transports/livekit-cli.test.ts',
  'test/project/package-install.test.ts',
  'test/plugins/pharmacy-flow.test.ts',
  'test/project/readme-library.test.ts',
  'test/service/reliability.test.ts',
  'test/testing/scenario-broken-agents.test.ts',
  'test/testing/scenario-suites.test.ts',
  'test/service/service-asr.test.ts',
  'test/service/service-fleet.test.ts',
  'test/service/service-store-crash.test.ts',
  'test/cli/talk-cli.test.ts',
  'test/cli/talk-llm-cli.test.ts',
  'test/testing/testing-cli.test.ts',
  'test/testing/testing-runner.test.ts',
  'test/testing/testing-simulated-caller.test.ts',
  'test/transports/transport-agent-app.test.ts',
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
