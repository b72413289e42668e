import { tap } from 'rxjs';
import { OggOpusStreamEncoder, Resampler, type AudioFrame } from '../../audio/index.js';
import type { Clock } from '../../pipeline/clock.js';
import type { Transport } from '../contracts.js';
import { wrappedTransport } from '../wrapped-transport.js';
import { RecordingFolder, type RecordingWriter } from './recording-store.js';

/** The recording's rate: speech-band Opus, a phone line's 8 kHz upsampled. */
export const RECORDING_RATE = 16000;
const SAMPLES_PER_MS = RECORDING_RATE / 1000;

export const audioDefaults = {
  /** Audio is encoded and written once this much of the call is settled, ms. */
  writeEveryMs: 1000,
  /** A caller frame later than this after the previous one starts after a silence, ms. */
  callerGapMs: 250,
  /** Opus for speech: 24 kb/s stereo, complexity 2. */
  bitrate: 24000,
  complexity: 2,
};


interface Segment {
  startMs: number;
  frame: AudioFrame;
  /** Where a barge-in cut it, ms from the call's start. */
  cutMs?: number;
}

interface Placed {
  startSample: number;
  samples: Int16Array;
}

const durationMs = (frame: AudioFrame) => (frame.samples.length * 1000) / frame.sampleRate;

/** One side of the call: its audio placed on the call's clock, resampled to the recording's rate. */
class Side {
  readonly waiting: Segment[] = [];
  private placed: Placed[] = [];
  private readonly resamplers = new Map<number, Promise<Resampler>>();

  /** Resamples the segments starting before `toSample` and copies what falls in [from, to) into `into`. */
  async fill(into: Int16Array, fromSample: number, toSample: number): Promise<void> {
    while (this.waiting.length > 0 && this.waiting[0]!.startMs * SAMPLES_PER_MS < toSample) {
      const segment = this.waiting.shift()!;
      let samples = segment.frame.samples;
      if (segment.cutMs !== undefined) samples = samples.subarray(0, Math.max(0, Math.round(((segment.cutMs - segment.startMs) * segment.frame.sampleRate) / 1000)));
      if (segment.frame.sampleRate !== RECORDING_RATE) samples = (await this.resampler(segment.frame.sampleRate)).process(samples);
      this.placed.push({ startSample: Math.round(segment.startMs * SAMPLES_PER_MS), samples });
    }
    const later: Placed[] = [];
    for (const { startSample, samples } of this.placed) {
      const from = Math.max(startSample, fromSample);
      const to = Math.min(startSample + samples.length, toSample);
      if (to > from) into.set(samples.subarray(from - startSample, to - startSample), from - fromSample);
      if (startSample + samples.length > toSample) later.push({ startSample, samples });
    }
    this.placed = later;
  }

  close(): void {
    for (const resampler of this.resamplers.values()) void resampler.then((r) => r.destroy(), () => undefined);
  }

  private resampler(rate: number): Promise<Resampler> {
    let resampler = this.resamplers.get(rate);
    if (!resampler) {
      resampler = Resampler.create(rate, RECORDING_RATE);
      this.resamplers.set(rate, resampler);
    }
    return resampler;
  }
}

/**
 * One call's audio as a stereo Ogg Opus file, the caller on the left and the agent on the right, on the call's
 * clock: silence where a side is quiet, and on the agent's side only what was played (a barge-in cuts what was
 * queued). Written as the call goes, a second at a time, so a process that dies mid-call leaves a playable file
 * up to about then.
 */
export class CallRecording {
  private readonly caller = new Side();
  private readonly agent = new Side();
  private readonly encoder = new OggOpusStreamEncoder({
    sampleRate: RECORDING_RATE,
    channels: 2,
    bitrate: audioDefaults.bitrate,
    complexity: audioDefaults.complexity,
  });
  private readonly file: RecordingWriter;
  private readonly startedMs: number;
  private callerEndMs = 0;
  private agentEndMs = 0;
  private writtenSamples = 0;
  private written: Promise<void> = Promise.resolve();
  private ended = false;

  /** `to`: a file's path, or a recording store's writer (PostgreSQL's). */
  constructor(
    to: string | RecordingWriter,
    private readonly clock: Clock,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {
    this.file = typeof to === 'string' ? RecordingFolder.file(to, onError) : to;
    this.startedMs = clock.now();
  }

  /** A frame of the caller's audio as it arrives: after the previous one, or after a silence if it came late. */
  heard(frame: AudioFrame): void {
    if (this.ended) return;
    const lengthMs = durationMs(frame);
    const arrivedStartMs = this.now() - lengthMs;
    const startMs = arrivedStartMs - this.callerEndMs > audioDefaults.callerGapMs ? arrivedStartMs : this.callerEndMs;
    this.caller.waiting.push({ startMs, frame });
    this.callerEndMs = startMs + lengthMs;
    this.writeSettled(false);
  }

  /** A frame of the agent's audio handed to the transport: it plays after what is queued. */
  played(frame: AudioFrame): void {
    if (this.ended) return;
    const startMs = Math.max(this.now(), this.agentEndMs);
    this.agent.waiting.push({ startMs, frame });
    this.agentEndMs = startMs + durationMs(frame);
  }

  /** The agent's queued audio was dropped (a barge-in): what was not yet played is not in the recording. */
  cleared(): void {
    this.cutAgentAt(this.now());
  }

  /** Writes the rest and closes the file (the agent's side cut at the hang-up). */
  end(): Promise<void> {
    if (this.ended) return this.written;
    const nowMs = this.now();
    this.cutAgentAt(nowMs);
    this.ended = true;
    this.write(Math.max(this.callerEndMs, Math.min(this.agentEndMs, nowMs)), true);
    return this.written;
  }

  private now(): number {
    return this.clock.now() - this.startedMs;
  }

  private cutAgentAt(nowMs: number): void {
    const waiting = this.agent.waiting;
    while (waiting.length > 0 && waiting.at(-1)!.startMs >= nowMs) waiting.pop();
    const last = waiting.at(-1);
    if (last && last.startMs + durationMs(last.frame) > nowMs) last.cutMs = nowMs;
    this.agentEndMs = Math.min(this.agentEndMs, nowMs);
  }

  /** Writes up to where neither side can change any more, once a second's worth has settled. */
  private writeSettled(force: boolean): void {
    const nowMs = this.now();
    // The agent's audio is settled once played (or cut); the caller's once it has arrived.
    const playing = this.agent.waiting.find((segment) => segment.cutMs === undefined && segment.startMs + durationMs(segment.frame) > nowMs);
    const settledMs = Math.min(nowMs, this.callerEndMs, playing?.startMs ?? Infinity);
    if (force || settledMs * SAMPLES_PER_MS - this.writtenSamples >= audioDefaults.writeEveryMs * SAMPLES_PER_MS) this.write(settledMs, false);
  }

  private write(toMs: number, last: boolean): void {
    const toSample = Math.max(this.writtenSamples, Math.floor(toMs * SAMPLES_PER_MS));
    const fromSample = this.writtenSamples;
    this.writtenSamples = toSample;
    this.written = this.written
      .then(async () => {
        const left = new Int16Array(toSample - fromSample);
        const right = new Int16Array(toSample - fromSample);
        await this.caller.fill(left, fromSample, toSample);
        await this.agent.fill(right, fromSample, toSample);
        const stereo = new Int16Array(left.length * 2);
        for (let i = 0; i < left.length; i++) {
          stereo[2 * i] = left[i]!;
          stereo[2 * i + 1] = right[i]!;
        }
        const pages = this.encoder.write(stereo);
        if (last) pages.push(...this.encoder.end());
        for (const page of pages) this.file.write(page);
        if (last) {
          this.caller.close();
          this.agent.close();
          await this.file.end();
        }
      })
      .catch((error: unknown) => {
        this.onError(error);
        if (last) {
          this.encoder.close();
          this.file.destroy();
        }
      });
  }
}

/** The transport with its caller audio, played audio and barge-ins going to the recording too. */
export function recordedTransport(inner: Transport, audio: CallRecording): Transport {
  return wrappedTransport(inner, {
    audio$: inner.audio$.pipe(tap((frame) => audio.heard(frame))),
    play: (frame) => {
      audio.played(frame);
      inner.play(frame);
    },
    clear: () => {
      audio.cleared();
      inner.clear();
    },
  });
}
