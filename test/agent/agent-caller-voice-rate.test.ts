/**
 * A phone caller's 8 kHz audio reaches the VAD and the recognizer without resampling when both take 8 kHz
 * (Silero and hosted recognition); with a recognizer that takes only 16 kHz (local pocketsphinx) it is
 * resampled as before.
 */
import { from, lastValueFrom, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createFrame } from '../../src/audio/index.js';
import { callerVoice } from '../../src/agent/caller-voice.js';
import type { VoiceActivityDetector } from '../../src/engines/index.js';
import { VirtualClock } from '../../src/pipeline/index.js';
import { WorkTracker } from '../../src/pipeline/work.js';

/** Speech is a frame louder than 1000; scores 16 kHz, and 8 kHz in 256-sample frames; records what it was given. */
class TwoRateVad implements VoiceActivityDetector {
  readonly frameSamples = 512;
  readonly seen: string[] = [];
  frameSamplesAt(rate: number): number | undefined {
    return rate === 8000 ? 256 : undefined;
  }
  async probability(frame: Int16Array, sampleRate = 16000): Promise<number> {
    this.seen.push(`${frame.length}@${sampleRate}`);
    return frame.some((s) => Math.abs(s) > 1000) ? 0.95 : 0.02;
  }
  reset(): void {}
  release(): void {}
}

/** 3 s of an 8 kHz caller in 20 ms frames: loud from 0.5 s to 1.5 s. */
const caller8k = () =>
  Array.from({ length: 150 }, (_, i) => createFrame(new Int16Array(160).fill(i >= 25 && i < 75 ? 5000 : 10), 8000, i * 20));

async function voice(takesSampleRate: (rate: number) => boolean) {
  const vad = new TwoRateVad();
  const events = await lastValueFrom(callerVoice(from(caller8k()), vad, new VirtualClock(), new WorkTracker(), { minSilenceMs: 300 }, undefined, takesSampleRate).pipe(toArray()));
  const audio = events.flatMap((e) => (e.type === 'speech-audio' ? [e.frame.sampleRate] : []));
  const span = events.flatMap((e) => (e.type === 'speech-start' ? [e.atMs] : e.type === 'speech-end' ? [e.lastVoiceMs] : []));
  return { seen: new Set(vad.seen), rates: new Set(audio), span };
}

describe("a phone caller's audio rate through VAD and recognition", () => {
  it('stays at 8 kHz when the recognizer takes 8 kHz too', async () => {
    const { seen, rates, span } = await voice((rate) => rate === 8000);
    expect(seen).toEqual(new Set(['256@8000']));
    expect(rates).toEqual(new Set([8000]));
    expect(span[0]).toBeGreaterThanOrEqual(480);
    expect(span[0]).toBeLessThanOrEqual(512);
    expect(span[1]).toBeGreaterThanOrEqual(1440);
    expect(span[1]).toBeLessThanOrEqual(1504);
  });

  it('is resampled to 16 kHz when the recognizer takes only 16 kHz', async () => {
    const { seen, rates } = await voice(() => false);
    expect(seen).toEqual(new Set(['512@16000']));
    expect(rates).toEqual(new Set([16000]));
  });
});
