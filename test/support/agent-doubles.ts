/** Test doubles for agent tests: deterministic VAD, recognizer and synthesiser keyed on signal amplitude. */
import { concatMap, from, interval, Observable, of, toArray, map, zip } from 'rxjs';
import type { Clock } from '../../src/pipeline/index.js';
import type { AudioFrame } from '../../src/audio/index.js';
import type { Dialogue, DialogueInput, DialogueOutput, SpeechRequest, SpeechToText, SpokenWord, TextToSpeech, TranscriptEvent, WorkOptions } from '../../src/agent/index.js';
import type { VoiceActivityDetector } from '../../src/engines/index.js';

const peakOf = (samples: Int16Array) => samples.reduce((max, s) => Math.max(max, Math.abs(s)), 0);

/** Speech is any 32 ms frame louder than 1000. */
export class EnergyVad implements VoiceActivityDetector {
  readonly frameSamples = 512;
  released = false;
  async probability(frame: Int16Array): Promise<number> {
    return peakOf(frame) > 1000 ? 0.95 : 0.02;
  }
  reset(): void {}
  release(): void {
    this.released = true;
  }
}

/** What a "speaker" of a given amplitude says, as the recognizer double hears it. */
export const words: Record<number, string> = { 5000: 'hello there', 8000: 'please stop talking', 6000: 'okay', 4000: '' };

/**
 * Recognizes by the loudest sample of the utterance; one interim after `interimEveryMs` of audio (none when 0),
 * the final at the endpoint.
 */
export class AmplitudeStt implements SpeechToText {
  utterances = 0;
  constructor(private readonly interimEveryMs = 96) {}
  transcribe(utterance$: Observable<AudioFrame>, _work?: WorkOptions): Observable<TranscriptEvent> {
    this.utterances++;
    return new Observable<TranscriptEvent>((subscriber) => {
      let peak = 0;
      let heardMs = 0;
      let interimSent = false;
      const text = () => words[[8000, 6000, 5000, 4000].find((a) => peak >= a - 50) ?? 4000] ?? '';
      return utterance$.subscribe({
        next: (frame) => {
          peak = Math.max(peak, peakOf(frame.samples));
          heardMs += (frame.samples.length * 1000) / frame.sampleRate;
          if (!interimSent && this.interimEveryMs > 0 && heardMs >= this.interimEveryMs && peak > 1000) {
            interimSent = true;
            if (text()) subscriber.next({ text: text(), words: [], final: false });
          }
        },
        complete: () => {
          subscriber.next({ text: text(), words: [], final: true });
          subscriber.complete();
        },
        error: (e: unknown) => subscriber.error(e),
      });
    });
  }
}

export const WORD_MS = 300;

/** Each word is 300 ms of a 440 Hz tone (16 kHz), with exact word timings. */
export class ToneTts implements TextToSpeech {
  prepared = 0;
  prepare(): void {
    this.prepared++;
  }
  speak(request: SpeechRequest): Observable<{ frame: AudioFrame; words?: SpokenWord[] }> {
    let offsetMs = 0;
    return request.text$.pipe(
      concatMap((piece) => {
        const tokens = piece.split(/\s+/).filter(Boolean);
        const samples = new Int16Array((tokens.length * WORD_MS * 16000) / 1000);
        for (let i = 0; i < samples.length; i++) samples[i] = Math.round(3000 * Math.sin((2 * Math.PI * 440 * i) / 16000));
        const spoken = tokens.map((word, i) => ({ word, startMs: offsetMs + i * WORD_MS, endMs: offsetMs + (i + 1) * WORD_MS }));
        const frames: { frame: AudioFrame; words?: SpokenWord[] }[] = [];
        for (let i = 0; i < samples.length; i += 320) {
          frames.push({ frame: { samples: samples.subarray(i, i + 320), sampleRate: 16000, timestampMs: offsetMs + i / 16 }, words: i === 0 ? spoken : undefined });
        }
        offsetMs += tokens.length * WORD_MS;
        return from(frames);
      }),
    );
  }
}

/**
 * ToneTts synthesising at twice real time on the call's clock (a 20 ms frame every 10 ms), so a long reply is
 * still being synthesised when the caller barges in; records each synthesis, in the order they started.
 */
export class PacedToneTts implements TextToSpeech {
  /** `frames`: how many frames it has synthesised so far. */
  readonly syntheses: { startedAtMs: number; frames: number; endedAtMs?: number; abandoned?: boolean }[] = [];
  private readonly tones = new ToneTts();
  constructor(private readonly clock: Clock) {}
  speak(request: SpeechRequest): Observable<{ frame: AudioFrame; words?: SpokenWord[] }> {
    return new Observable((subscriber) => {
      const record: (typeof this.syntheses)[number] = { startedAtMs: this.clock.now(), frames: 0 };
      this.syntheses.push(record);
      const subscription = zip(this.tones.speak(request), interval(10, this.clock.scheduler))
        .pipe(map(([audio]) => audio))
        .subscribe({
          next: (audio) => {
            record.frames += 1;
            subscriber.next(audio);
          },
          error: (error: unknown) => subscriber.error(error),
          complete: () => {
            record.endedAtMs = this.clock.now();
            subscriber.complete();
          },
        });
      return () => {
        if (record.endedAtMs === undefined) Object.assign(record, { endedAtMs: this.clock.now(), abandoned: true });
        subscription.unsubscribe();
      };
    });
  }
}

export const LONG_REPLY = 'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen.';

/** Answers every turn with `reply`; greets with `greeting` when given. */
export class FixedDialogue implements Dialogue {
  readonly name = 'fixed';
  inputs: DialogueInput[] = [];
  constructor(
    private readonly reply: string | ((input: DialogueInput) => string) = LONG_REPLY,
    private readonly greetingLine?: string,
  ) {}
  greeting(): string | undefined {
    return this.greetingLine;
  }
  respond(input: DialogueInput): Observable<DialogueOutput> {
    this.inputs.push(input);
    const text = typeof this.reply === 'function' ? this.reply(input) : this.reply;
    return of<DialogueOutput>({ type: 'text', delta: text });
  }
}

/** A caller track: silence with square-wave "speech" of the given amplitude at the given times (16 kHz). */
export function callerTrack(totalMs: number, segments: { atMs: number; ms: number; amplitude: number }[]): { samples: Int16Array; sampleRate: number } {
  const samples = new Int16Array((totalMs * 16000) / 1000);
  for (const segment of segments) {
    const start = (segment.atMs * 16000) / 1000;
    const end = Math.min(samples.length, start + (segment.ms * 16000) / 1000);
    for (let i = start; i < end; i++) samples[i] = (Math.floor(i / 20) % 2 === 0 ? 1 : -1) * segment.amplitude;
  }
  return { samples, sampleRate: 16000 };
}

export { toArray, map };
