import { concat, from, lastValueFrom, NEVER, Observable, of, Subject, toArray } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { FailoverSpeechToText, FailoverTextToSpeech, ProviderError, type SpeechToText, type TextToSpeech, type TranscriptEvent, type UtteranceFrame } from '../../src/agent/index.js';
import { afterWords } from '../../src/agent/tts/failover-tts.js';
import { metricsRegistry } from '../../src/metrics/index.js';
import { deepgram } from '../../plugins/deepgram/index.js';
import { DeepgramDouble } from '../support/deepgram-double.js';
import { toneUtterance } from '../support/provider-audio.js';

/** A recogniser that hears the frames it is given and says how much audio it got, at what rate. */
function countingStt(provider: string): SpeechToText & { utterances: number } {
  const stt = {
    provider,
    utterances: 0,
    transcribe(utterance$: Observable<UtteranceFrame>): Observable<TranscriptEvent> {
      stt.utterances++;
      return new Observable<TranscriptEvent>((subscriber) => {
        let samples = 0;
        let rate = 0;
        return utterance$.subscribe({
          next: (frame) => {
            samples += frame.samples.length;
            rate = frame.sampleRate;
          },
          complete: () => {
            subscriber.next({ text: `${Math.round((samples * 1000) / rate)} ms at ${rate}`, words: [], final: true });
            subscriber.complete();
          },
        });
      });
    },
  };
  return stt;
}

async function failovers(stage: string): Promise<number> {
  const metric = (await metricsRegistry.getMetricsAsJSON()).find((m) => m.name === 'shoal_provider_failovers_total');
  return (metric?.values ?? []).filter((v) => v.labels['stage'] === stage).reduce((sum, v) => sum + v.value, 0);
}

describe('FailoverSpeechToText', () => {
  let double: DeepgramDouble | undefined;
  afterEach(async () => {
    await double?.close();
    double = undefined;
  });

  it('hands the utterance, from its start, to the next provider when Deepgram drops mid-call, and keeps it for the rest of the call', async () => {
    double = await DeepgramDouble.start({ script: ['First turn.', 'Second turn.'] });
    const local = countingStt('local');
    const handed: string[] = [];
    const stt = new FailoverSpeechToText([deepgram({ apiKey: 'test-key', baseUrl: double.url }), local], { onFailover: (from, to, error) => handed.push(`${from}->${to}:${(error as ProviderError).kind}`) });
    expect(stt.provider).toBe('deepgram,local');
    expect(stt.takesSampleRate(8000)).toBe(true);
    const call = stt.forCall({ callerSampleRate: () => 8000 });
    const before = await failovers('stt');

    const first = await lastValueFrom(call.transcribe(from(toneUtterance(8000, 400, 400))));
    expect(first).toMatchObject({ text: 'First turn.', provider: 'deepgram' });

    const frames = toneUtterance(8000, 600, 200);
    const live = new Subject<UtteranceFrame>();
    const events: TranscriptEvent[] = [];
    const done = lastValueFrom(call.transcribe(live).pipe(toArray()));
    for (const frame of frames.slice(0, 20)) live.next(frame);
    await until(() => double!.seen[0]!.audioBytes >= (toneUtterance(8000, 400, 400).length + 20) * 160);
    double.kill();
    await new Promise((resolve) => setTimeout(resolve, 20));
    for (const frame of frames.slice(20)) live.next(frame);
    live.complete();
    events.push(...(await done));
    // The whole utterance (800 ms), resampled to 16 kHz for a recogniser that takes only that.
    expect(events.at(-1)).toMatchObject({ final: true, provider: 'local' });
    expect(events.at(-1)!.text).toMatch(/^(79\d|800) ms at 16000$/);
    expect(handed).toEqual(['deepgram->local:dropped']);
    expect(await failovers('stt')).toBe(before + 1);

    const third = await lastValueFrom(call.transcribe(from(toneUtterance(8000, 200, 100))));
    expect(third.provider).toBe('local');
    expect(local.utterances).toBe(2);
    expect(double.seen).toHaveLength(1);
    call.release();
  });

  it('hands over when the first provider gives no final in time after the endpoint', async () => {
    const silent: SpeechToText = { provider: 'stuck', transcribe: () => NEVER };
    const stt = new FailoverSpeechToText([silent, countingStt('local')], { finalTimeoutMs: 30 });
    const final = await lastValueFrom(stt.transcribe(from(toneUtterance(16000, 100, 0))));
    expect(final).toMatchObject({ text: '100 ms at 16000', provider: 'local' });
  });

  it('fails the turn when the last provider fails too', async () => {
    const failing = (provider: string): SpeechToText => ({ provider, transcribe: () => new Observable((s) => s.error(new ProviderError(provider, 'server', 'down'))) });
    const stt = new FailoverSpeechToText([failing('a'), failing('b')]);
    await expect(lastValueFrom(stt.transcribe(of(...toneUtterance(16000, 40, 0))))).rejects.toMatchObject({ provider: 'b' });
  });
});

describe('FailoverTextToSpeech', () => {
  const frame = { samples: new Int16Array(160), sampleRate: 16000, timestampMs: 0 };
  /** Speaks each word as a frame with its timing; fails after `failAfter` words when set. */
  const wordsTts = (provider: string, failAfter?: number): TextToSpeech & { heard: string[] } => {
    const tts = {
      provider,
      heard: [] as string[],
      speak: ({ text$ }: { text$: Observable<string> }) =>
        new Observable<{ frame: typeof frame; words: Array<{ word: string; startMs: number; endMs: number }> }>((subscriber) => {
          let text = '';
          return text$.subscribe({
            next: (delta) => (text += delta),
            complete: () => {
              const words = text.split(/\s+/).filter(Boolean);
              tts.heard.push(text);
              for (const [index, word] of words.entries()) {
                if (failAfter !== undefined && index >= failAfter) {
                  subscriber.error(new ProviderError(provider, 'dropped', 'socket closed'));
                  return;
                }
                subscriber.next({ frame, words: [{ word, startMs: index * 10, endMs: index * 10 + 10 }] });
              }
              subscriber.complete();
            },
          });
        }),
    };
    return tts;
  };

  it('goes on with the next provider from the words already spoken, its word timings after the audio already given, and stays on it', async () => {
    const second = wordsTts('service');
    const tts = new FailoverTextToSpeech([wordsTts('cartesia', 2), second]);
    const audio = await lastValueFrom(tts.speak({ text$: from(['Your table ', 'is booked for ', 'Friday.']) }).pipe(toArray()));
    expect(audio.map((a) => `${a.provider}:${a.words![0]!.word}`)).toEqual(['cartesia:Your', 'cartesia:table', 'service:is', 'service:booked', 'service:for', 'service:Friday.']);
    // The next provider's words are timed from the reply's start (after the 20 ms the first one spoke), as barge-in reads them.
    expect(audio.map((a) => a.words![0]!.startMs)).toEqual([0, 10, 20, 30, 40, 50]);
    await lastValueFrom(tts.speak({ text$: of('Goodbye.') }).pipe(toArray()));
    expect(second.heard).toEqual(['is booked for Friday.', 'Goodbye.']);
  });

  it('skips words across deltas', async () => {
    expect(await lastValueFrom(afterWords(from(['Yo', 'ur tab', 'le is ', 'ready']), 2).pipe(toArray()))).toEqual(['is ', 'ready']);
    expect(await lastValueFrom(afterWords(concat(of('one two')), 1).pipe(toArray()))).toEqual(['two']);
  });
});

async function until(condition: () => boolean, timeoutMs = 3000): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
