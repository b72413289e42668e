import { describe, expect, it } from 'vitest';
import { analyzeVoice, FliteEngine, type VoiceSettings } from '../../src/engines/index.js';
import { synthesizeChunks, type SynthesisSettings } from '../../src/service/tts/synthesis.js';
import { planChunks } from '../../src/service/tts/text-plan.js';

const engine = new FliteEngine();
const voices: VoiceSettings[] = [{ voice: 'slt' }, { voice: 'rms' }];
const settings = (over: Partial<SynthesisSettings> = {}): SynthesisSettings => ({ voices, speed: 1, volumeDb: 0, normalizeLoudness: true, ...over });
const chunking = { chunkLength: 200, minChunkLength: 50, latency: 'normal', normalize: true } as const;

async function synthesize(text: string, over: Partial<SynthesisSettings> = {}, startSpeaker = 0) {
  const plan = planChunks(text, chunking, voices.length, startSpeaker);
  const out = [];
  for await (const chunk of synthesizeChunks(engine, plan.chunks, settings(over))) out.push(chunk);
  return out;
}
const pitchOf = (samples: Int16Array) => analyzeVoice(samples, 16000).pitchHz;

describe('speaker tags choose the voice of each part', () => {
  it('speaks each tagged part in its speaker\'s voice: the same audio as that voice alone, and its pitch', async () => {
    const mixed = await synthesize('<|speaker:0|>Good morning, how can I help? <|speaker:1|>I would like to book a table for two.');
    expect(mixed.map((c) => c.chunk.speaker)).toEqual([0, 1]);
    const [female] = await synthesize('Good morning, how can I help?', { voices: [voices[0]!] });
    const [male] = await synthesize('I would like to book a table for two.', { voices: [voices[1]!] });
    expect(Buffer.from(mixed[0]!.samples.buffer).equals(Buffer.from(female!.samples.buffer))).toBe(true);
    expect(Buffer.from(mixed[1]!.samples.buffer).equals(Buffer.from(male!.samples.buffer))).toBe(true);
    // slt is a female voice, rms a male one: measured median pitch 169.6 Hz and 101.2 Hz.
    const [high, low] = [pitchOf(mixed[0]!.samples), pitchOf(mixed[1]!.samples)];
    expect(high).toBeGreaterThan(low * 1.4);
  });

  it('text before the first tag is the start speaker\'s, and a speaker index carries over tags it follows', async () => {
    const continued = await synthesize('Certainly, for what time? <|speaker:0|>At eight.', {}, 1);
    expect(continued.map((c) => [c.chunk.speaker, c.chunk.text])).toEqual([
      [1, 'Certainly, for what time?'],
      [0, 'At eight.'],
    ]);
    const [male] = await synthesize('Certainly, for what time?', { voices: [voices[1]!] });
    expect(Buffer.from(continued[0]!.samples.buffer).equals(Buffer.from(male!.samples.buffer))).toBe(true);
  });

  it('applies speed to the speaker\'s own rate and volume after loudness', async () => {
    const [normal] = await synthesize('I would like to book a table for two.');
    const [fast] = await synthesize('I would like to book a table for two.', { speed: 2 });
    const [quiet] = await synthesize('I would like to book a table for two.', { volumeDb: -6 });
    expect(fast!.samples.length / normal!.samples.length).toBeLessThan(0.7);
    const rms = (s: Int16Array) => Math.sqrt(s.reduce((sum, v) => sum + v * v, 0) / s.length);
    expect(rms(quiet!.samples) / rms(normal!.samples)).toBeCloseTo(10 ** (-6 / 20), 2);
  });
});
