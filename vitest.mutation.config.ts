import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * The test files mutation testing runs (stryker.config.mjs): those that exercise the core modules within seconds
 * (doubles, virtual clock, small fixtures). Slow suites with real engines stay out so a run fits on a small machine.
 * Listed here rather than with Stryker's `testFiles`, which activates module-level (static) mutants too late.
 */
export const mutationTestFiles = [
  'test/pipeline-operators.test.ts',
  'test/agent-resolve-options.test.ts',
  'test/pipeline-work-clock.test.ts',
  'test/agent-modes.test.ts',
  'test/agent-barge-in.test.ts',
  'test/agent-interruption.test.ts',
  'test/agent-virtual-clock.test.ts',
  'test/agent-service-stt-trace.test.ts',
  'test/agent-service-stt.test.ts',
  'test/tracing-traceparent.test.ts',
  'test/audio-g711.test.ts',
  'test/audio-pcm.test.ts',
  'test/transport-telephony.test.ts',
  'test/transport-telephony-refusals.test.ts',
  'test/engines-text.test.ts',
  'test/service-prices.test.ts',
  'test/service-tts-speakers.test.ts',
  'test/pipeline-utterances.test.ts',
  'test/engines-text-chunker.test.ts',
  'test/service-tts-text-plan.test.ts',
  'test/telephony-media-stream-messages.test.ts',
  'test/agent-call-timers.test.ts',
  'test/frame-helpers.test.ts',
  'test/service-wallet.test.ts',
  'test/service-wallet-route.test.ts',
  'test/agent-tracing-context.test.ts',
  'test/agent-llm-turns.test.ts',
  'test/agent-speech-fallback.test.ts',
  'test/agent-reply-tools.test.ts',
  'test/listening-expectations.test.ts',
  'test/pipeline-playout.test.ts',
  'test/pipeline-frames.test.ts',
  'test/service-tts-synthesis.test.ts',
  'test/agent-reply.test.ts',
  'test/agent-utterance-state.test.ts',
  'test/agent-session-events.test.ts',
  'test/agent-session-turns.test.ts',
  'test/agent-session-preemptive.test.ts',
  'test/agent-answered-by.test.ts',
];

/**
 * `MUTATION_TESTS=test/a.test.ts,test/b.test.ts` narrows the run to those files (e.g. a module's own tests):
 * module-level mutants run every listed test, so a short list makes a one-module run much faster.
 */
const include = process.env['MUTATION_TESTS']?.split(',').filter(Boolean) ?? mutationTestFiles;

// One project of just these files: the base config's projects each have an `include` of their own, which would
// run the whole suite. Spread, not mergeConfig: mergeConfig would append to `include` instead of replacing it.
const { projects: _projects, ...shared } = base.test ?? {};
export default defineConfig({ ...base, test: { ...shared, include, reporters: ['default'] } });
