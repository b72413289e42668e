import { readFileSync } from 'node:fs';
import { encodeMuLaw, parseWav } from '../../src/audio/index.js';
import type { UtteranceFrame } from '../../src/agent/index.js';

/** 20 ms frames at `sampleRate`: a loud tone for `speechMs` ("speech" to a provider double), then `silenceMs` of silence. */
export function toneUtterance(sampleRate: number, speechMs: number, silenceMs: number, startMs = 0): UtteranceFrame[] {
  const perFrame = sampleRate / 50;
  const frames: UtteranceFrame[] = [];
  const total = Math.round((speechMs + silenceMs) / 20);
  for (let index = 0; index < total; index++) {
    const samples = new Int16Array(perFrame);
    if (index * 20 < speechMs) for (let i = 0; i < perFrame; i++) samples[i] = Math.round(8000 * Math.sin((2 * Math.PI * 440 * (index * perFrame + i)) / sampleRate));
    frames.push({ samples, sampleRate, timestampMs: startMs + index * 20 });
  }
  return frames;
}

/** A caller's turn as a phone line carries it (8 kHz mu-law): "hello, I would like to book a table…" from test/fixtures/calls/booking-8k-ulaw.wav, then 1.5 s of quiet. */
export function phoneTurn(): Uint8Array {
  const recording = encodeMuLaw(parseWav(readFileSync(new URL('../fixtures/calls/booking-8k-ulaw.wav', import.meta.url))).samples);
  const turn = new Uint8Array(8000 * 4.7).fill(0xff);
  turn.set(recording.subarray(8000 * 0.9, 8000 * 4.2));
  return turn;
}
