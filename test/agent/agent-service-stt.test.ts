import { lastValueFrom, Observable, Subject, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { parseWav, type AudioFrame } from '../../src/audio/index.js';
import { SegmentServiceSpeechToText, type TranscribeWav } from '../../src/agent/index.js';

const frame = (ms: number, value = 1000, sampleRate = 16000): AudioFrame => ({
  samples: new Int16Array((ms * sampleRate) / 1000).fill(value),
  sampleRate,
  timestampMs: 0,
});

/** A `/v1/asr` double: answers each request with `answers(n)` (n = request number) after the caller releases it. */
function service(answer: (n: number, samples: Int16Array) => string | Error = () => 'hello') {
  const requests: { samples: Int16Array; signal: AbortSignal; release: () => void }[] = [];
  const transcribe: TranscribeWav = (wav, signal) =>
    new Promise((resolve, reject) => {
      const samples = parseWav(wav).samples;
      const n = requests.length;
      requests.push({
        samples,
        signal,
        release: () => {
          const result = answer(n, samples);
          if (result instanceof Error) reject(result);
          else resolve({ text: result, words: [] });
        },
      });
    });
  return { requests, transcribe };
}
const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('recognition on a whole-utterance service', () => {
  it("sends the call's expectations as hints with each request, and none once they are cleared; passes on whether the final was expected", async () => {
    const sent: unknown[] = [];
    const stt = new SegmentServiceSpeechToText(
      async (_wav, _signal, _traceparent, hints) => (sent.push(hints), { text: 'four one', words: [], ...(hints ? { expected: false } : {}) }),
      { minAudioMs: 0 },
    );
    const call = stt.forCall();
    const utterance = () => lastValueFrom(call.transcribe(new Observable<AudioFrame>((s) => (s.next(frame(100)), s.complete()))).pipe(toArray()));
    call.expect!([{ kind: 'digits', minLength: 4, maxLength: 4 }]);
    expect(await utterance()).toEqual([{ text: 'four one', words: [], final: true, expected: false }]);
    call.expect!(undefined);
    expect(await utterance()).toEqual([{ text: 'four one', words: [], final: true }]);
    expect(sent).toEqual([[{ kind: 'digits', minLength: 4, maxLength: 4 }], undefined]);
    call.release();
  });

  it("sends a telephone caller's utterances as 8 kHz audio, which the service hears as telephone audio", async () => {
    const sent: Array<{ rate: number; seconds: number }> = [];
    const stt = new SegmentServiceSpeechToText(async (wav) => {
      const { sampleRate, samples } = parseWav(wav);
      sent.push({ rate: sampleRate, seconds: samples.length / sampleRate });
      return { text: 'yes', words: [] };
    }, { minAudioMs: 1000 });
    const calls = [{ callerSampleRate: () => 8000 }, { callerSampleRate: () => 16000, telephoneBand: () => true }, { callerSampleRate: () => 16000 }];
    for (const call of calls) await lastValueFrom(stt.forCall(call).transcribe(new Observable<AudioFrame>((s) => (s.next(frame(1500)), s.complete()))));
    expect(sent).toEqual([
      { rate: 8000, seconds: 1.5 },
      { rate: 8000, seconds: 1.5 },
      { rate: 16000, seconds: 1.5 },
    ]);
  });

  it("takes a phone line's 8 kHz utterance as it is and sends those very samples; refuses a rate change inside an utterance", async () => {
    const svc = service();
    const stt = new SegmentServiceSpeechToText(svc.transcribe, { minAudioMs: 1000 });
    const call = stt.forCall({ callerSampleRate: () => 8000 });
    expect(call.takesSampleRate?.(8000)).toBe(true);
    expect(call.takesSampleRate?.(11025)).toBe(false);
    const events = lastValueFrom(call.transcribe(new Observable<AudioFrame>((s) => (s.next(frame(200, 1000, 8000)), s.next(frame(100, -500, 8000)), s.complete()))).pipe(toArray()));
    await flush();
    const sent = svc.requests[0]!.samples;
    expect(sent.length).toBe(8000);
    expect(sent.subarray(0, 1600).every((s) => s === 1000)).toBe(true);
    expect(sent.subarray(1600, 2400).every((s) => s === -500)).toBe(true);
    svc.requests[0]!.release();
    expect(await events).toEqual([{ text: 'hello', words: [], final: true }]);
    const mixed = lastValueFrom(call.transcribe(new Observable<AudioFrame>((s) => (s.next(frame(100, 1000, 8000)), s.next(frame(100)), s.complete()))));
    await expect(mixed).rejects.toThrow(/16000 Hz after 8000 Hz/);
  });

  it('sends the utterance at its end, padded to the service minimum with faint noise after the speech', async () => {
    const svc = service();
    const stt = new SegmentServiceSpeechToText(svc.transcribe, { minAudioMs: 1000 });
    const events = lastValueFrom(stt.transcribe(new Observable<AudioFrame>((s) => (s.next(frame(200, 1000)), s.next(frame(100, -500)), s.complete()))).pipe(toArray()));
    await flush();
    expect(svc.requests).toHaveLength(1);
    const sent = svc.requests[0]!.samples;
    expect(sent.length).toBe(16000);
    expect(sent.subarray(0, 3200).every((s) => s === 1000)).toBe(true);
    expect(sent.subarray(3200, 4800).every((s) => s === -500)).toBe(true);
    const padding = sent.subarray(4800);
    expect(padding.every((s) => Math.abs(s) <= 8)).toBe(true);
    expect(new Set(padding).size).toBeGreaterThan(5);
    svc.requests[0]!.release();
    expect(await events).toEqual([{ text: 'hello', words: [], final: true }]);
  });

  it('sends audio longer than the minimum as it is', async () => {
    const svc = service();
    const stt = new SegmentServiceSpeechToText(svc.transcribe, { minAudioMs: 100 });
    const done = lastValueFrom(stt.transcribe(new Observable<AudioFrame>((s) => (s.next(frame(300)), s.complete()))).pipe(toArray()));
    await flush();
    expect(svc.requests[0]!.samples.length).toBe(4800);
    svc.requests[0]!.release();
    await done;
  });

  it('re-sends the growing utterance every interimEveryMs of audio, one request at a time, for interims', async () => {
    const svc = service((n) => (n === 1 ? '' : `take ${n}`));
    const stt = new SegmentServiceSpeechToText(svc.transcribe, { interimEveryMs: 300, minAudioMs: 0 });
    const audio = new Subject<AudioFrame>();
    const events: { text: string; final: boolean }[] = [];
    const done = new Promise<void>((resolve) => stt.transcribe(audio).subscribe({ next: (e) => events.push(e), complete: resolve }));
    for (let i = 0; i < 14; i++) audio.next(frame(20));
    expect(svc.requests).toHaveLength(0);
    audio.next(frame(20));
    expect(svc.requests.map((r) => r.samples.length)).toEqual([4800]);
    for (let i = 0; i < 15; i++) audio.next(frame(20));
    expect(svc.requests).toHaveLength(1);
    svc.requests[0]!.release();
    await flush();
    expect(events).toEqual([{ text: 'take 0', words: [], final: false }]);
    // 300 ms of audio came while the first was in flight: the next frame sends the whole utterance again.
    audio.next(frame(20));
    expect(svc.requests.map((r) => r.samples.length)).toEqual([4800, 9920]);
    svc.requests[1]!.release();
    await flush();
    // An empty interim is not passed on.
    expect(events).toHaveLength(1);
    audio.complete();
    svc.requests[2]!.release();
    await done;
    expect(events.at(-1)).toEqual({ text: 'take 2', words: [], final: true });
  });

  it('drops an interim that answers after the final was asked for, and ignores a failed interim', async () => {
    const svc = service((n) => (n === 0 ? new Error('busy') : `take ${n}`));
    const stt = new SegmentServiceSpeechToText(svc.transcribe, { interimEveryMs: 100, minAudioMs: 0 });
    const audio = new Subject<AudioFrame>();
    const events: { text: string; final: boolean }[] = [];
    const done = new Promise<void>((resolve, reject) => stt.transcribe(audio).subscribe({ next: (e) => events.push(e), complete: resolve, error: reject }));
    audio.next(frame(100));
    svc.requests[0]!.release();
    await flush();
    audio.next(frame(100));
    expect(svc.requests).toHaveLength(2);
    audio.complete();
    svc.requests[1]!.release();
    svc.requests[2]!.release();
    await done;
    expect(events).toEqual([{ text: 'take 2', words: [], final: true }]);
  });

  it('fails the utterance when the final request fails or the audio is not at 16 or 8 kHz, and aborts requests when dropped', async () => {
    const failing = new SegmentServiceSpeechToText(service(() => new Error('service down')).transcribe, { minAudioMs: 0 });
    const svc = service(() => new Error('service down'));
    const failed = lastValueFrom(new SegmentServiceSpeechToText(svc.transcribe, { minAudioMs: 0 }).transcribe(new Observable<AudioFrame>((s) => (s.next(frame(100)), s.complete()))));
    await flush();
    svc.requests[0]!.release();
    await expect(failed).rejects.toThrow('service down');
    await expect(lastValueFrom(failing.transcribe(new Observable<AudioFrame>((s) => s.next(frame(100, 1, 11025)))))).rejects.toThrow(
      'speech recognition takes one utterance at 16000 or 8000 Hz, got 11025 Hz',
    );
    await expect(lastValueFrom(failing.transcribe(new Observable<AudioFrame>((s) => s.error(new Error('line dropped')))))).rejects.toThrow('line dropped');
    const pending = service();
    const subscription = new SegmentServiceSpeechToText(pending.transcribe, { minAudioMs: 0 }).transcribe(new Observable<AudioFrame>((s) => (s.next(frame(100)), s.complete()))).subscribe();
    await flush();
    expect(pending.requests[0]!.signal.aborted).toBe(false);
    subscription.unsubscribe();
    expect(pending.requests[0]!.signal.aborted).toBe(true);
  });
});
