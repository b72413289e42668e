import { describe, expect, it } from 'vitest';
import { defaults as failureDefaults } from '../../src/agent/failure-policy.js';
import { defaults } from '../../src/agent/options.js';
import { resolveAgentOptions } from '../../src/agent/resolve-options.js';
import type { VoiceAgentOptions } from '../../src/agent/options.js';
import { systemClock, VirtualClock } from '../../src/pipeline/clock.js';

// The engines are never touched by resolveAgentOptions: plain objects stand in for them.
const base = { dialogue: {}, stt: {}, tts: {}, vad: () => ({}), mode: 'balanced' } as unknown as VoiceAgentOptions;

describe('resolveAgentOptions', () => {
  it('keeps what the application set', () => {
    const clock = new VirtualClock();
    const resolved = resolveAgentOptions({
      ...base,
      voice: { minSpeechMs: 90 },
      playout: { maxBufferedMs: 1234 },
      maxReprompts: 0,
      maxCallMs: 60_000,
      userSilenceTimeoutMs: 3000,
      clock,
      goodbyeLine: 'Bye now.',
      repromptLine: 'Still there?',
      greet: false,
    });
    expect(resolved.voice).toEqual({ minSpeechMs: 90 });
    expect(resolved.playout).toEqual({ maxBufferedMs: 1234 });
    // 0 is a setting (never reprompt), not "unset".
    expect(resolved.maxReprompts).toBe(0);
    expect(resolved.maxCallMs).toBe(60_000);
    expect(resolved.userSilenceTimeoutMs).toBe(3000);
    expect(resolved.clock).toBe(clock);
    expect([resolved.goodbyeLine, resolved.repromptLine, resolved.greet]).toEqual(['Bye now.', 'Still there?', false]);
  });

  it('fills in the defaults', () => {
    const resolved = resolveAgentOptions(base);
    expect(resolved.voice).toEqual({});
    expect(resolved.playout).toEqual({});
    expect(resolved.maxReprompts).toBe(defaults.maxReprompts);
    expect(resolved.clock).toBe(systemClock);
    expect(resolved.failures.lines).toEqual(failureDefaults.lines);
  });

  it('says one fallback line for every failure, unless a kind has its own', () => {
    const resolved = resolveAgentOptions({ ...base, fallbackLine: 'One moment.', failures: { lines: { speaking: 'Sorry.' } } });
    expect(resolved.failures.lines).toEqual({ listening: 'One moment.', thinking: 'One moment.', speaking: 'Sorry.' });
  });
});
