import { Observable } from 'rxjs';
import type { AudioFrame } from '../../audio/index.js';
import type { LiveTtsSession, SpeechClient } from '../../client/index.js';
import type { SpeechPreparation, SpeechRequest, SpokenWord, TextToSpeech } from '../contracts.js';
import { traceparentOf } from '../tracing.js';

export interface LiveTtsOptions {
  latency: 'low' | 'balanced' | 'normal';
  /** Voice model id (`reference_id`); the service's default voice when absent. */
  referenceId?: string;
  /** The rate asked for when a request names none, or one the service does not speak. */
  sampleRate: number;
  /** A socket opened by `prepare()` and not used within this long is closed. */
  warmIdleMs: number;
}

export const defaults: LiveTtsOptions = { latency: 'balanced', sampleRate: 16000, warmIdleMs: 10_000 };

/** The PCM rates the service synthesises at: a request for one of these gets audio at that rate, with no conversion here. */
export const liveTtsSampleRates: readonly number[] = [8000, 16000, 24000, 32000, 44100];

type SpeechAudio = { frame: AudioFrame; words?: SpokenWord[] };

interface Warm {
  session: Promise<LiveTtsSession>;
  sampleRate: number;
  timer: NodeJS.Timeout;
}

/**
 * Speech over the service's live WebSocket: one socket per reply, text sent as it comes, a flush per text
 * piece. `prepare()` opens the socket ahead (at the caller's speech start) so the upgrade carries that
 * turn's `traceparent` and costs no latency later. Speech comes at the request's `sampleRate` when the service
 * speaks it (a phone call's 8 kHz), else at `options.sampleRate`. Unsubscribing cancels the synthesis and closes the socket.
 */
export class LiveTextToSpeech implements TextToSpeech {
  private readonly options: LiveTtsOptions;
  /** Sockets opened ahead, by trace id, so concurrent calls never share one. */
  private readonly warm = new Map<string, Warm>();

  constructor(
    private readonly client: SpeechClient,
    options: Partial<LiveTtsOptions> = {},
  ) {
    this.options = { ...defaults, ...options };
  }

  prepare(request: SpeechPreparation = {}): void {
    const traceparent = traceparentOf();
    const key = traceparent?.split('-')[1] ?? '';
    this.discardWarm(key);
    const sampleRate = this.rateFor(request);
    const session = this.open(traceparent, sampleRate);
    session.catch(() => undefined); // a failed warm-up is reported by the speak() that would have used it
    const timer = setTimeout(() => this.discardWarm(key), this.options.warmIdleMs);
    timer.unref();
    this.warm.set(key, { session, sampleRate, timer });
  }

  speak(request: SpeechRequest): Observable<SpeechAudio> {
    return new Observable<SpeechAudio>((subscriber) => {
      const traceparent = traceparentOf();
      const key = traceparent?.split('-')[1] ?? '';
      const sampleRate = this.rateFor(request);
      if (this.warm.get(key)?.sampleRate !== sampleRate) this.discardWarm(key);
      const warm = this.warm.get(key);
      if (warm) {
        clearTimeout(warm.timer);
        this.warm.delete(key);
      }
      const opening = warm?.session ?? this.open(traceparent, sampleRate);
      let session: LiveTtsSession | undefined;
      let closed = false;
      let textSubscription: { unsubscribe(): void } | undefined;
      const flushed: Promise<number>[] = [];
      const ended = new Set<number>();
      let textDone = false;
      let offsetMs = 0;
      let carry: number | undefined;
      const finishIfDone = async () => {
        if (!textDone) return;
        const ids = await Promise.all(flushed);
        if (!closed && ids.every((id) => id === 0 || ended.has(id))) subscriber.complete();
      };
      opening.then(
        async (opened) => {
          session = opened;
          if (closed) {
            opened.close();
            return;
          }
          textSubscription = request.text$.subscribe({
            next: (piece) => {
              opened.send(`${piece} `);
              flushed.push(
                opened.flush().then((result) => {
                  if (result.outcome === 'failed') throw result.error ?? new Error('live synthesis failed');
                  return result.utterance;
                }),
              );
              flushed.at(-1)!.catch((error: unknown) => subscriber.error(error));
            },
            error: (error: unknown) => subscriber.error(error),
            complete: () => {
              textDone = true;
              void finishIfDone().catch(() => undefined);
            },
          });
          for await (const event of opened) {
            if (closed) break;
            if (event.type === 'audio') {
              let bytes = event.audio;
              if (carry !== undefined) {
                const joined = new Uint8Array(bytes.length + 1);
                joined[0] = carry;
                joined.set(bytes, 1);
                bytes = joined;
                carry = undefined;
              }
              if (bytes.length % 2 === 1) carry = bytes[bytes.length - 1];
              const samples = new Int16Array(bytes.length >> 1);
              const view = new DataView(bytes.buffer, bytes.byteOffset, samples.length * 2);
              for (let i = 0; i < samples.length; i++) samples[i] = view.getInt16(i * 2, true);
              if (samples.length === 0) continue;
              subscriber.next({ frame: { samples, sampleRate, timestampMs: offsetMs } });
              offsetMs += (samples.length * 1000) / sampleRate;
            } else if (event.type === 'utterance-end') {
              if (event.charge !== undefined) request.charged?.(event.charge);
              ended.add(event.utterance);
              void finishIfDone().catch(() => undefined);
            } else if (event.type === 'utterance-restart') {
              throw new Error('live synthesis restarted an utterance after a reconnect');
            }
          }
        },
        (error: unknown) => subscriber.error(error),
      ).catch((error: unknown) => {
        if (!closed) subscriber.error(error);
      });
      return () => {
        closed = true;
        textSubscription?.unsubscribe();
        // Closing drops the socket, which stops the service too; `cancel()` first would open a new socket.
        session?.close();
      };
    });
  }

  private rateFor(request: SpeechPreparation): number {
    return request.sampleRate !== undefined && liveTtsSampleRates.includes(request.sampleRate) ? request.sampleRate : this.options.sampleRate;
  }

  private open(traceparent: string | undefined, sampleRate: number): Promise<LiveTtsSession> {
    return this.client.live(
      { format: 'pcm', sample_rate: sampleRate, latency: this.options.latency, reference_id: this.options.referenceId ?? null },
      { traceparent },
    );
  }

  private discardWarm(key: string): void {
    const warm = this.warm.get(key);
    if (!warm) return;
    this.warm.delete(key);
    clearTimeout(warm.timer);
    warm.session.then((session) => session.close(), () => undefined);
  }

  /** Closes sockets opened ahead and not used. */
  close(): void {
    for (const key of [...this.warm.keys()]) this.discardWarm(key);
  }
}
