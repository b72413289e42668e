import type { UtteranceFrame } from '../src/agent/index.js';

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
