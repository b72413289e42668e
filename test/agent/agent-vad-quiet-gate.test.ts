/**
 * Silero's quiet gate, on by default when a streaming provider recognises: a phone caller on a quiet line (digital
 * silence, then line noise at -70 dBFS) speaks (a real caller, test/fixtures/calls/booking-8k-ulaw.wav), the
 * endpoint fires and Deepgram (its double) gives the turn; the caller barges in over the reply after a quiet
 * stretch. With the gate the onsets and the barge-in come as without it (within two 32 ms frames), the endpoint
 * within three, and the quiet stretches cost no inference.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { createEmbeddedAgentStack, type EmbeddedAgentStack } from '../../src/agent/stack/embedded-stack.js';
import type { AgentEvent } from '../../src/agent/index.js';
import { parseWav } from '../../src/audio/index.js';
import { SileroVad, sileroInference } from '../../src/engines/index.js';
import { VirtualClock } from '../../src/pipeline/index.js';
import { FileTransport } from '../../src/transports/file/file-transport.js';
import { deepgram } from '../../plugins/deepgram/index.js';
import { AmplitudeStt, FixedDialogue, LONG_REPLY, ToneTts } from '../support/agent-doubles.js';
import { DeepgramDouble } from '../support/deepgram-double.js';

const recording = parseWav(readFileSync(new URL('../fixtures/calls/booking-8k-ulaw.wav', import.meta.url))).samples;
const rate = 8000;
const at = (ms: number) => (ms * rate) / 1000;

/**
 * 1 s of digital silence, then -70 dBFS line noise; "Hello, I would like to book a table for two people tonight"
 * at 1.5 s; "Goodbye" over the agent's reply at 8 s, after more than a second of quiet.
 */
function phoneCaller(): { samples: Int16Array; sampleRate: number } {
  const samples = new Int16Array(at(11_000));
  let seed = 7;
  for (let i = at(1000); i < samples.length; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    samples[i] = Math.round(((seed / 0x7fffffff) * 2 - 1) * 18); // RMS about 10: -70 dBFS
  }
  samples.set(recording.subarray(at(900), at(4200)), at(1500));
  samples.set(recording.subarray(at(10_050), at(10_800)), at(8000));
  return { samples, sampleRate: rate };
}

interface Heard {
  events: Array<AgentEvent & { clockMs: number }>;
  finals: string[];
  /** Frames the model ran on. */
  inferences: number;
}

/** One call on a virtual clock, Silero in this thread with the quiet gate at `quietBelowDbfs`. */
async function call(stack: EmbeddedAgentStack, quietBelowDbfs: number): Promise<Heard> {
  const clock = new VirtualClock();
  const inference = sileroInference();
  let inferences = 0;
  const counting = { ready: inference.ready, run: (...args: Parameters<typeof inference.run>) => (inferences++, inference.run(...args)) };
  const agent = stack.agentFor(new FixedDialogue(LONG_REPLY), { clock, vad: () => new SileroVad(counting, { quietBelowDbfs }) });
  const transport = new FileTransport(phoneCaller(), clock, { maxTailMs: 3000 });
  const session = agent.handle(transport);
  transport.settle = () => session.settled();
  const events: Heard['events'] = [];
  session.events$.subscribe((event) => events.push({ ...event, clockMs: clock.now() }));
  await session.summary;
  const finals = events.flatMap((e) => (e.type === 'transcript' && e.final ? [e.text] : []));
  return { events, finals, inferences };
}

const times = (heard: Heard, type: AgentEvent['type']) => heard.events.filter((e) => e.type === type).map((e) => e.clockMs);

describe('the quiet gate with a streaming provider recogniser', () => {
  const closing: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const close of closing.splice(0)) await close();
  });

  it('is on at -55 dBFS by default for deepgram, off for a recogniser without its own end of speech; the option and SHOAL_VAD_QUIET_BELOW_DBFS override it', async () => {
    const double = await DeepgramDouble.start();
    closing.push(() => double.close());
    const gateOf = async (options: Parameters<typeof createEmbeddedAgentStack>[0]) => {
      const stack = await createEmbeddedAgentStack({ tts: new ToneTts(), ...options });
      closing.push(() => stack.close());
      return (stack.vadInThread() as SileroVad).quietBelowDbfs;
    };
    const streaming = () => deepgram({ apiKey: 'test-key', baseUrl: double.url });
    expect(await gateOf({ stt: streaming() })).toBe(-55);
    expect(await gateOf({ stt: [streaming(), new AmplitudeStt()] })).toBe(-55);
    expect(await gateOf({ stt: new AmplitudeStt() })).toBe(-Infinity);
    expect(await gateOf({ stt: streaming(), vadQuietBelowDbfs: -Infinity })).toBe(-Infinity);
    const saved = process.env['SHOAL_VAD_QUIET_BELOW_DBFS'];
    try {
      process.env['SHOAL_VAD_QUIET_BELOW_DBFS'] = 'off';
      expect(await gateOf({ stt: streaming() })).toBe(-Infinity);
      process.env['SHOAL_VAD_QUIET_BELOW_DBFS'] = '-60';
      expect(await gateOf({ stt: new AmplitudeStt() })).toBe(-60);
    } finally {
      if (saved === undefined) delete process.env['SHOAL_VAD_QUIET_BELOW_DBFS'];
      else process.env['SHOAL_VAD_QUIET_BELOW_DBFS'] = saved;
    }
  });

  it('loses no onset: a caller after silence gets the turn, the endpoint fires, and a barge-in after quiet interrupts the reply, as without the gate', async () => {
    const double = await DeepgramDouble.start({ script: ['I would like to book a table.', 'Goodbye.', 'I would like to book a table.', 'Goodbye.'] });
    closing.push(() => double.close());
    const stack = await createEmbeddedAgentStack({ stt: deepgram({ apiKey: 'test-key', baseUrl: double.url }), tts: new ToneTts(), mode: 'balanced' });
    closing.push(() => stack.close());

    const gate = (stack.vadInThread() as SileroVad).quietBelowDbfs;
    expect(gate).toBe(-55);
    const gated = await call(stack, gate);
    const everyFrame = await call(stack, -Infinity);
    // 11 s of call in 32 ms frames; the quiet stretches (about two thirds of it) skip the model.
    expect(everyFrame.inferences).toBeGreaterThan(330);
    expect(gated.inferences).toBeLessThan(everyFrame.inferences * 0.6);

    expect(gated.finals).toEqual(['I would like to book a table.', 'Goodbye.']);
    expect(everyFrame.finals).toEqual(gated.finals);
    const starts = times(gated, 'user-started-speaking');
    const ends = times(gated, 'user-stopped-speaking');
    expect(starts).toHaveLength(2);
    expect(starts[0]).toBeGreaterThanOrEqual(1500);
    expect(starts[0]).toBeLessThan(1800);
    expect(starts[1]).toBeGreaterThanOrEqual(8000);
    expect(ends).toHaveLength(2);
    expect(times(gated, 'interrupted')).toHaveLength(1);
    expect(times(gated, 'interrupted')[0]).toBeGreaterThanOrEqual(8000);
    // Onsets and the barge-in as without the gate, within two 32 ms frames. The ends within three: on the line's
    // noise after the words the model alone may score a frame as speech, which the gate scores quiet.
    const tolerances = { 'user-started-speaking': 64, interrupted: 64, 'user-stopped-speaking': 96, 'agent-started-speaking': 96 } as const;
    for (const [type, toleranceMs] of Object.entries(tolerances) as Array<[keyof typeof tolerances, number]>) {
      const reference = times(everyFrame, type);
      expect(times(gated, type), type).toHaveLength(reference.length);
      times(gated, type).forEach((ms, i) => expect(Math.abs(ms - reference[i]!), type).toBeLessThanOrEqual(toleranceMs));
    }
  }, 30_000);
});
