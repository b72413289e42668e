/** What the synthesis adapters' tests share: audio sums, a traced context, a barge-in, a key taken away. */
import { ROOT_CONTEXT, trace, type Context } from '@opentelemetry/api';
import { firstValueFrom, Subject, type Observable } from 'rxjs';
import { expect } from 'vitest';
import { ProviderError, type SpokenAudio, type TextToSpeech } from '../../src/agent/index.js';
import { sleep } from './synthesis-double-kit.js';

export const samplesOf = (audio: readonly SpokenAudio[]): number => audio.reduce((total, piece) => total + piece.frame.samples.length, 0);

/** The samples of all the pieces, joined. */
export function joinedSamples(audio: readonly SpokenAudio[]): Int16Array {
  const all = new Int16Array(samplesOf(audio));
  let offset = 0;
  for (const piece of audio) {
    all.set(piece.frame.samples, offset);
    offset += piece.frame.samples.length;
  }
  return all;
}

export const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
/** A context whose active span gives `traceparent`. */
export const tracedContext = (): Context => trace.setSpanContext(ROOT_CONTEXT, { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1 });

export const longSentence = 'This is a rather long sentence that the caller will interrupt before it ends.';

/** Starts speaking `longSentence` (its text not yet ended) and unsubscribes at the first audio: a barge-in. */
export async function bargeIn(tts: TextToSpeech, sampleRate: number): Promise<{ received: SpokenAudio[]; heldAt: number }> {
  const text$ = new Subject<string>();
  const received: SpokenAudio[] = [];
  const subscription = tts.speak({ text$, sampleRate }).subscribe((piece) => received.push(piece));
  text$.next(longSentence);
  while (received.length === 0) await sleep(5);
  subscription.unsubscribe();
  return { received, heldAt: received.length };
}

/** The error of `speech$`'s first value, checked to be the provider's rejection of its key. */
export async function expectKeyRejected(speech$: Observable<unknown>, provider: string, status: number, keyVariable: string): Promise<void> {
  const error = await firstValueFrom(speech$).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(ProviderError);
  expect(error).toMatchObject({ provider, kind: 'auth', details: { status, keyVariable } });
  expect((error as ProviderError).line).toContain(keyVariable);
}

/** Runs `action` with the variable unset. */
export function withoutVariable(name: string, action: () => void): void {
  const saved = process.env[name];
  delete process.env[name];
  try {
    action();
  } finally {
    if (saved !== undefined) process.env[name] = saved;
  }
}
