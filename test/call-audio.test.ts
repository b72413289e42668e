/** Call audio: the caller and the agent as one stereo Ogg Opus file per call, on the call's clock. */
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OggOpusDecoder } from 'ogg-opus-decoder';
import { describe, expect, it } from 'vitest';
import { createFrame, decodeOggOpus } from '../src/audio/index.js';
import { CallRecording, SqliteCallStore } from '../src/agent/index.js';
import { callerTrack } from './agent-doubles.js';
import { VirtualClock } from '../src/pipeline/index.js';
import { virtualCall } from './agent-virtual-call.js';

/** Each side's loudness per 100 ms window (RMS), from a stereo file. */
async function envelopes(bytes: Uint8Array): Promise<{ left: number[]; right: number[] }> {
  const decoder = new OggOpusDecoder();
  await decoder.ready;
  try {
    const { channelData, samplesDecoded, sampleRate } = await decoder.decodeFile(bytes);
    expect(channelData).toHaveLength(2);
    const window = sampleRate / 10;
    const rms = (channel: Float32Array) =>
      Array.from({ length: Math.floor(samplesDecoded / window) }, (_, w) => {
        let sum = 0;
        for (let i = w * window; i < (w + 1) * window; i++) sum += channel[i]! ** 2;
        return Math.sqrt(sum / window);
      });
    return { left: rms(channelData[0]!), right: rms(channelData[1]!) };
  } finally {
    decoder.free();
  }
}

const tone = (ms: number, rate: number, amplitude = 8000) => {
  const samples = new Int16Array((ms * rate) / 1000);
  for (let i = 0; i < samples.length; i++) samples[i] = Math.round(amplitude * Math.sin((2 * Math.PI * 300 * i) / rate));
  return samples;
};
const loud = (values: number[]) => values.map((value) => (value > 0.05 ? 1 : 0)).join('');

describe('a call recording', () => {
  it('puts the caller left and the agent right on the call clock, and cuts the agent at a barge-in', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'shoal-audio-'));
    const clock = new VirtualClock();
    const audio = new CallRecording(join(dir, 'call.ogg'), clock, (error) => console.error(error));
    // The caller: a phone line's 8 kHz, 20 ms frames; speaking 0-1 s, quiet until 3 s.
    const speech = tone(1000, 8000);
    for (let t = 0; t < 3000; t += 20) {
      clock.advanceTo(t + 20);
      const slice = t < 1000 ? speech.subarray((t * 8000) / 1000, ((t + 20) * 8000) / 1000) : new Int16Array(160);
      audio.heard(createFrame(slice, 8000));
      // The agent queues 2 s of 16 kHz audio at 1.5 s; the caller barges in at 2.5 s.
      if (t + 20 === 1500) for (let i = 0; i < 20; i++) audio.played(createFrame(tone(100, 16000), 16000));
      if (t + 20 === 2500) audio.cleared();
    }
    // Written as the call goes: what is on disk before the end is already a file that plays.
    let partial = await readFile(join(dir, 'call.ogg'));
    for (let tries = 0; tries < 50 && partial.length < 1000; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      partial = await readFile(join(dir, 'call.ogg'));
    }
    expect((await decodeOggOpus(partial)).samples.length).toBeGreaterThan(16000 * 1.5);
    await audio.end();
    const { left, right } = await envelopes(await readFile(join(dir, 'call.ogg')));
    expect(left).toHaveLength(30);
    expect(loud(left)).toBe('1'.repeat(10) + '0'.repeat(20));
    expect(loud(right)).toBe('0'.repeat(15) + '1'.repeat(10) + '0'.repeat(5));
  });

  it('of a whole call matches what the caller said and what the agent played', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'shoal-audio-'));
    const store = new SqliteCallStore(dir);
    const segments = [
      { atMs: 500, ms: 600, amplitude: 5000 },
      { atMs: 4000, ms: 700, amplitude: 8000 },
    ];
    const { track } = await virtualCall({ records: { store, recordingsDir: join(dir, 'recordings') } }, segments, 8000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const [id] = (await store.list({})).calls.map((call) => call.id);
    expect(await readdir(join(dir, 'recordings'))).toEqual([`${id}.ogg`]);
    const { left, right } = await envelopes(await readFile(join(dir, 'recordings', `${id}.ogg`)));
    const windows = (samples: Int16Array) =>
      Array.from({ length: left.length }, (_, w) => {
        let sum = 0;
        for (let i = w * 1600; i < Math.min(samples.length, (w + 1) * 1600); i++) sum += (samples[i]! / 32768) ** 2;
        return Math.sqrt(sum / 1600);
      });
    const agreement = (a: string, b: string) => [...a].filter((c, i) => c === b[i]).length / a.length;
    expect(agreement(loud(left), loud(windows(callerTrack(8000, segments).samples)))).toBeGreaterThanOrEqual(0.95);
    expect(loud(right)).toContain('1');
    expect(agreement(loud(right), loud(windows(track)))).toBeGreaterThanOrEqual(0.95);
    await store.close();
  });
});
