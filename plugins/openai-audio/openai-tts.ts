import { Observable } from 'rxjs';
import { createFrame, Resampler } from '../../src/audio/index.js';
import type { SpeechRequest, SpokenAudio, SynthesisCapabilities, TextToSpeech } from '../../src/agent/index.js';
import { post, provider } from './http.js';
import { requireOpenAiKey } from './openai-stt.js';
import { pcmRate, resolveOptions, type OpenAiAudioOptions } from './options.js';

/** The end of a sentence in streamed text: `.`, `!` or `?` (and closing quotes) followed by a space. */
const sentenceEnd = /[.!?…]["')\]]*\s+/g;

/** Splits off the complete sentences of `text`; the rest waits for more deltas. */
export function takeSentences(text: string): { sentences: string[]; rest: string } {
  const sentences: string[] = [];
  let from = 0;
  for (const match of text.matchAll(sentenceEnd)) {
    const end = match.index + match[0].length;
    const sentence = text.slice(from, end).trim();
    if (sentence) sentences.push(sentence);
    from = end;
  }
  return { sentences, rest: text.slice(from) };
}

/**
 * Synthesis through `POST /audio/speech` of an OpenAI-compatible server (OpenAI, Kokoro-FastAPI, speaches, LocalAI):
 * the dialogue's text is sent sentence by sentence as each completes, `response_format: pcm` (24 kHz) streamed and
 * converted to the line's rate as it comes. Unsubscribing aborts the request in flight (barge-in).
 */
export class OpenAiTextToSpeech implements TextToSpeech {
  readonly provider = provider;
  readonly capabilities: SynthesisCapabilities = { streamingInput: false, timings: 'none', sampleRates: [pcmRate], encodings: ['pcm16'], cancel: true };
  private readonly options: ReturnType<typeof resolveOptions>;

  constructor(options: Partial<OpenAiAudioOptions> = {}) {
    this.options = resolveOptions(options);
  }

  speak(request: SpeechRequest): Observable<SpokenAudio> {
    return new Observable<SpokenAudio>((subscriber) => {
      const abort = new AbortController();
      const outputRate = request.sampleRate ?? 16_000;
      let pending = '';
      let queue = Promise.resolve();
      let timestampMs = 0;
      const resampler = outputRate === pcmRate ? undefined : Resampler.create(pcmRate, outputRate);
      const say = (sentence: string) => {
        queue = queue.then(async () => {
          if (abort.signal.aborted) return;
          const converter = await resampler;
          for await (const samples of this.synthesise(sentence, abort.signal)) {
            const out = converter ? converter.process(samples) : samples;
            if (out.length === 0) continue;
            subscriber.next({ frame: createFrame(out, outputRate, timestampMs), provider });
            timestampMs += (out.length * 1000) / outputRate;
          }
          const tail = converter?.flush();
          if (tail && tail.length > 0) {
            subscriber.next({ frame: createFrame(tail, outputRate, timestampMs), provider });
            timestampMs += (tail.length * 1000) / outputRate;
          }
        });
        queue.catch((error: unknown) => {
          if (!abort.signal.aborted) subscriber.error(error);
        });
      };
      const text = request.text$.subscribe({
        next: (delta) => {
          const { sentences, rest } = takeSentences(pending + delta);
          pending = rest;
          for (const sentence of sentences) say(sentence);
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => {
          if (pending.trim()) say(pending.trim());
          pending = '';
          queue.then(() => subscriber.complete(), () => undefined);
        },
      });
      return () => {
        text.unsubscribe();
        abort.abort();
      };
    });
  }

  /** One sentence's audio as 24 kHz samples, chunk by chunk as the body streams. */
  private async *synthesise(input: string, signal: AbortSignal): AsyncGenerator<Int16Array> {
    const o = this.options;
    const body = JSON.stringify({ model: o.ttsModel, voice: o.voice, input, response_format: 'pcm' });
    const response = await post(`${o.baseUrl}/audio/speech`, requireOpenAiKey(o.apiKey), body, { json: true, signal, timeoutMs: o.timeoutMs });
    let carry: Uint8Array = new Uint8Array(0);
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      const bytes = carry.length > 0 ? concat(carry, chunk) : chunk;
      const even = bytes.length - (bytes.length % 2);
      carry = bytes.slice(even);
      if (even === 0) continue;
      const copy = bytes.slice(0, even);
      yield new Int16Array(copy.buffer, copy.byteOffset, even / 2);
    }
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
