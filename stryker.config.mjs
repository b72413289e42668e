// Mutation testing of the core modules: `npm run test:mutation` (all of them, incremental) or
// `npm run test:mutation -- --mutate src/agent/modes.ts` (one module). Reports: reports/mutation/index.html
// (open in a browser) and reports/mutation/mutation.json. See README "Mutation testing".

/** The core modules whose tests must catch deliberate bugs, by area. */
export const coreModules = {
  pipeline: [
    'src/pipeline/chunk-text.ts',
    'src/pipeline/reframe.ts',
    'src/pipeline/resample.ts',
    'src/pipeline/utterances.ts',
    'src/pipeline/vad.ts',
    'src/pipeline/playout.ts',
    'src/pipeline/work.ts',
    'src/pipeline/clock.ts',
  ],
  agentSessionAndModes: ['src/agent/modes.ts', 'src/agent/resolve-options.ts', 'src/agent/call-session.ts', 'src/agent/caller-input.ts', 'src/agent/agent-speaking.ts', 'src/agent/agent-listening.ts'],
  turnTakingAndBargeIn: ['src/agent/interruption.ts', 'src/agent/utterance-state.ts', 'src/agent/reply.ts', 'src/agent/call-timers.ts'],
  tracing: ['src/tracing/traceparent.ts', 'src/agent/tracing.ts', 'src/agent/stt/segment-service-stt.ts'],
  billingAndCredit: ['src/service/store/account-gate.ts', 'src/service/routes/wallet.ts'],
  audioCodecs: ['src/audio/g711.ts', 'src/audio/pcm.ts', 'src/audio/frame.ts'],
  telephonyFraming: ['src/transports/telephony/media-stream-messages.ts', 'src/transports/telephony/telephony-endpoint.ts'],
  ttsChunkingAndSpeakerTags: ['src/engines/text/chunker.ts', 'src/service/tts/text-plan.ts', 'src/service/tts/synthesis.ts'],
};


/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  $schema: './node_modules/@stryker-mutator/core/schema/stryker-schema.json',
  testRunner: 'vitest',
  // The test files are listed in vitest.mutation.config.ts; each mutant runs only the tests that covered it.
  vitest: { configFile: 'vitest.mutation.config.ts', related: false },
  plugins: ['@stryker-mutator/vitest-runner'],
  mutate: Object.values(coreModules).flat(),
  coverageAnalysis: 'perTest',
  // Two cores shared with other work: one or two test processes at a time.
  concurrency: 2,
  timeoutMS: 4_000,
  timeoutFactor: 2,
  incremental: true,
  incrementalFile: 'reports/stryker-incremental.json',
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  clearTextReporter: { allowColor: false, reportTests: false, reportMutants: false },
  thresholds: { high: 90, low: 80, break: null },
  ignorePatterns: ['dist', 'dist-all', 'reports', 'test-output', 'coverage', '.shoal', 'web', 'docs', 'bench', '.stryker-tmp*'],
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
};
