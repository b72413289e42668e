import { concatSamples } from '../../audio/index.js';
import { speechDefaults, type VoiceActivityDetector } from '../../engines/index.js';
import { recognizerRate } from './audio-input.js';

/** What one stretch of audio did, in audio time (ms from the stream's start). */
export type SegmentEvent =
  /** Speech began at `atMs`; `audio` starts `prefixMs` before it. */
  | { type: 'speech-start'; atMs: number; audio: Int16Array; audioStartMs: number }
  /** Audio of the utterance in progress (speech and the silence within it). */
  | { type: 'audio'; audio: Int16Array }
  /** The speaker paused: the endpoint may follow. */
  | { type: 'paused' }
  /** The endpoint: `silenceMs` of silence (or the longest utterance) reached at `atMs`. */
  | { type: 'endpoint'; atMs: number; speechEnded: boolean };

/**
 * Cuts a 16 kHz stream into utterances with a voice activity detector: speech starts at a frame at or above
 * the activation threshold, and the utterance ends after `endpointingMs` of frames below the deactivation
 * threshold (never, when false: only the caller's Finalize ends it). It reads probabilities with the pipeline's
 * thresholds (`speechDefaults`) but not its rules: speech starts at its first frame (no minimum speech), a pause
 * ends only at the activation threshold, and the utterance's length counts its prefix.
 */
export class SpeechSegmenter {
  private state: 'idle' | 'speaking' | 'trailing' = 'idle';
  private carry = new Int16Array(0);
  private prefix: Int16Array[] = [];
  private frames = 0;
  private silenceMs = 0;
  private utteranceStartMs = 0;
  private readonly frameSamples: number;
  private readonly frameMs: number;

  constructor(
    private readonly vad: VoiceActivityDetector,
    private readonly endpointingMs: number | false,
  ) {
    this.frameSamples = vad.frameSamples;
    this.frameMs = (vad.frameSamples * 1000) / recognizerRate;
  }

  /** Audio time scored so far, in ms. */
  get scoredMs(): number {
    return this.frames * this.frameMs;
  }

  get inUtterance(): boolean {
    return this.state !== 'idle';
  }

  /** Ends the utterance in progress without an endpoint (the caller's Finalize); the next speech starts a new one. */
  reset(): void {
    this.state = 'idle';
    this.silenceMs = 0;
  }

  /** The samples not yet scored (less than one frame), handed over at a Finalize. */
  takeCarry(): Int16Array {
    const rest = this.carry;
    this.carry = new Int16Array(0);
    return rest;
  }

  async push(samples: Int16Array): Promise<SegmentEvent[]> {
    const events: SegmentEvent[] = [];
    let all = samples;
    if (this.carry.length > 0) {
      all = new Int16Array(this.carry.length + samples.length);
      all.set(this.carry);
      all.set(samples, this.carry.length);
    }
    let offset = 0;
    for (; offset + this.frameSamples <= all.length; offset += this.frameSamples) {
      const frame = all.slice(offset, offset + this.frameSamples);
      const probability = await this.vad.probability(frame);
      this.step(frame, probability, events);
      this.frames++;
    }
    this.carry = all.slice(offset);
    return events;
  }

  private step(frame: Int16Array, probability: number, events: SegmentEvent[]): void {
    const atMs = this.frames * this.frameMs;
    const { activationThreshold, deactivationThreshold, prefixPaddingMs, maxUtteranceMs } = speechDefaults;
    if (this.state === 'idle') {
      if (probability < activationThreshold) {
        this.prefix.push(frame);
        if (this.prefix.length * this.frameMs > prefixPaddingMs) this.prefix.shift();
        return;
      }
      const audio = concatSamples([...this.prefix, frame]);
      const audioStartMs = atMs - this.prefix.length * this.frameMs;
      this.prefix = [];
      this.state = 'speaking';
      this.silenceMs = 0;
      this.utteranceStartMs = audioStartMs;
      events.push({ type: 'speech-start', atMs, audio, audioStartMs });
      return;
    }
    events.push({ type: 'audio', audio: frame });
    const endMs = atMs + this.frameMs;
    if (endMs - this.utteranceStartMs >= maxUtteranceMs) {
      this.state = 'idle';
      events.push({ type: 'endpoint', atMs: endMs, speechEnded: false });
      return;
    }
    if (this.state === 'speaking') {
      if (probability >= deactivationThreshold) return;
      this.state = 'trailing';
      this.silenceMs = this.frameMs;
      events.push({ type: 'paused' });
    } else {
      if (probability >= activationThreshold) {
        this.state = 'speaking';
        this.silenceMs = 0;
        return;
      }
      this.silenceMs += this.frameMs;
    }
    if (this.endpointingMs !== false && this.silenceMs >= this.endpointingMs) {
      this.state = 'idle';
      events.push({ type: 'endpoint', atMs: endMs, speechEnded: true });
    }
  }
}
