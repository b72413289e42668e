import { concatAll, concatMap, filter, map, Observable, ReplaySubject } from 'rxjs';
import { ProviderError, traceparentOf, type SpeechRequest, type SpokenAudio, type SynthesisCapabilities, type TextToSpeech } from '../../src/agent/index.js';
import { Resampler, splitFrame } from '../../src/audio/index.js';
import { base64Bytes, WireAudioFrames } from '../synthesis-kit.js';
import { openAiClient, provider, providerErrorOf } from './client.js';
import { openAiSpeechDefaults, type OpenAiSpeechOptions } from './options.js';

/**
 * Synthesis on an OpenAI-compatible `POST /audio/speech` (OpenAI, speaches, Kokoro-FastAPI, LocalAI): not streaming
 * its input, so each piece the agent cuts from the reply (a clause or sentence) is one request, started as soon as the
 * piece arrives; its `pcm` body (24 kHz) is handed on as it streams, in order, converted to the line's rate.
 * Unsubscribing (barge-in) aborts the requests in flight.
 */
export class OpenAiTextToSpeech implements TextToSpeech {
  readonly provider = provider;
  readonly capabilities: SynthesisCapabilities;
  private readonly options: OpenAiSpeechOptions;
  private readonly openai: ReturnType<typeof openAiClient>;

  constructor(options: Partial<OpenAiSpeechOptions> = {}) {
    this.options = { ...openAiSpeechDefaults, ...options };
    this.openai = openAiClient(this.options);
    this.capabilities = { streamingInput: false, timings: 'none', sampleRates: [this.options.pcmSampleRate], encodings: ['pcm16'], cancel: true };
  }

  speak(request: SpeechRequest): Observable<SpokenAudio> {
    return new Observable<SpokenAudio>((subscriber) => {
      const abort = new AbortController();
      // Requests start later, outside this context, so the reply's trace is captured now.
      const traceparent = traceparentOf();
      const from = this.options.pcmSampleRate;
      const to = request.sampleRate ?? from;
      const wire = new WireAudioFrames(from, 'pcm16');
      const samplesPerFrame = Math.max(1, Math.round((to * this.options.frameMs) / 1000));
      let resampler: Resampler | undefined;
      let handedMs = 0;
      const hand = (samples: Int16Array) => {
        if (samples.length === 0) return;
        for (const frame of splitFrame({ samples, sampleRate: to, timestampMs: handedMs }, samplesPerFrame)) subscriber.next({ frame, provider });
        handedMs += (samples.length * 1000) / to;
      };
      const subscription = request.text$
        .pipe(
          filter((piece) => piece.trim().length > 0),
          map((piece) => this.pieceAudio(piece.trim(), abort.signal, traceparent)),
          concatAll(),
          concatMap(async (bytes) => {
            const frame = wire.push(bytes);
            if (!frame || from === to) return frame?.samples;
            resampler ??= await Resampler.create(from, to);
            return resampler.process(frame.samples);
          }),
        )
        .subscribe({
          next: (samples) => samples && hand(samples),
          error: (error: unknown) => subscriber.error(error),
          complete: () => {
            if (resampler) hand(resampler.flush());
            subscriber.complete();
          },
        });
      return () => {
        abort.abort();
        subscription.unsubscribe();
      };
    });
  }

  /** Starts one piece's request now; its body's PCM bytes, replayed to whoever listens once the earlier pieces are done. */
  private pieceAudio(input: string, signal: AbortSignal, traceparent: string | undefined): Observable<Uint8Array> {
    const bytes = new ReplaySubject<Uint8Array>();
    const o = this.options;
    const { sdk, client, baseUrl } = this.openai;
    const sse = o.streamFormat === 'sse';
    void (async () => {
      let response: Response;
      try {
        response = await client.audio.speech.create(
          { model: o.model, voice: o.voice, input, response_format: 'pcm', ...(o.instructions ? { instructions: o.instructions } : {}), ...(o.speed !== undefined ? { speed: o.speed } : {}), ...(sse ? { stream_format: 'sse' } : {}) },
          { signal, ...(traceparent ? { headers: { traceparent } } : {}) },
        );
      } catch (error) {
        bytes.error(providerErrorOf(sdk, error, baseUrl));
        return;
      }
      try {
        for await (const piece of sse ? sseAudio(response) : bodyChunks(response)) bytes.next(piece);
        bytes.complete();
      } catch (error) {
        if (signal.aborted) bytes.complete();
        else bytes.error(error instanceof ProviderError ? error : new ProviderError(provider, 'dropped', `the audio stream broke off mid-reply (${error instanceof Error ? error.message : String(error)})`, { cause: error }));
      }
    })();
    return bytes;
  }
}

async function* bodyChunks(response: Response): AsyncGenerator<Uint8Array> {
  if (!response.body) return;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) yield chunk;
}

/** The audio of `speech.audio.delta` events, until `speech.audio.done`. */
async function* sseAudio(response: Response): AsyncGenerator<Uint8Array> {
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of bodyChunks(response)) {
    text += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = text.search(/\r?\n\r?\n/)) >= 0) {
      const block = text.slice(0, end);
      text = text.slice(end).replace(/^\r?\n\r?\n/, '');
      const data = block
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trim())
        .join('\n');
      if (!data) continue;
      const event = JSON.parse(data) as { type?: string; audio?: string; error?: { message?: string } };
      if (event.type === 'speech.audio.delta' && event.audio) yield base64Bytes(event.audio);
      else if (event.type === 'speech.audio.done') return;
      else if (event.type === 'error') throw new ProviderError(provider, 'server', event.error?.message ?? 'an error event');
    }
  }
}
