import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * The test files mutation testing runs (stryker.config.mjs): those that exercise the core modules within seconds
 * (doubles, virtual clock, small fixtures). Slow suites with real engines stay out so a run fits on a small machine.
 * Listed here rather than with Stryker's `testFiles`, which activates module-level (static) mutants too late.
 */
export const mutationTestFiles = [
  'test/pipeline/pipeline-operators.test.ts',
  'test/agent/agent-resolve-options.test.ts',
  'test/pipeline/pipeline-work-clock.test.ts',
  'test/agent/agent-modes.test.ts',
  'test/agent/agent-barge-in.test.ts',
  'test/agent/agent-interruption.test.ts',
  'test/agent/agent-virtual-clock.test.ts',
  'test/agent/agent-service-stt-trace.test.ts',
  'test/agent/agent-service-stt.test.ts',
  'test/tracing/tracing-traceparent.test.ts',
  'test/audio/audio-g711.test.ts',
  'test/audio/audio-pcm.test.ts',
  'test/transports/transport-telephony.test.ts',
  'test/transports/transport-telephony-refusals.test.ts',
  'test/engines/engines-text.test.ts',
  'test/service/service-prices.test.ts',
  'test/service/service-tts-speakers.test.ts',
  'test/pipeline/pipeline-utterances.test.ts',
  'test/engines/engines-text-chunker.test.ts',
  'test/service/service-tts-text-plan.test.ts',
  'test/transports/telephony-media-stream-messages.test.ts',
  'test/agent/agent-call-timers.test.ts',
  'test/audio/frame-helpers.test.ts',
  'test/service/service-wallet.test.ts',
  'test/service/service-wallet-route.test.ts',
  'test/agent/agent-tracing-context.test.ts',
  'test/agent/agent-llm-turns.test.ts',
  'test/agent/agent-speech-fallback.test.ts',
  'test/agent/agent-reply-tools.test.ts',
  'test/engines/listening-expectations.test.ts',
  'test/pipeline/pipeline-playout.test.ts',
  'test/pipeline/pipeline-frames.test.ts',
  'test/service/service-tts-synthesis.test.ts',
  'test/agent/agent-reply.test.ts',
  'test/agent/agent-utterance-state.test.ts',
  'test/agent/agent-session-events.test.ts',
  'test/agent/agent-session-turns.test.ts',
  'test/agent/agent-session-preemptive.test.ts',
  'test/agent/agent-answered-by.test.ts',
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
