import {
  SegmentServiceSpeechToText,
  type CallAudio,
  type CallSpeechToText,
  type Expectation,
  type RecognitionCapabilities,
  type SpeechToText,
  type TranscriptEvent,
  type UtteranceFrame,
  type WorkOptions,
  requireKey,
} from '../../src/agent/index.js';
import type { WordTiming } from '../../src/speech/index.js';
import type { Observable } from 'rxjs';
import { expectedTerms } from '../provider-kit.js';
import { post, provider } from './http.js';
import { keyVariable, resolveOptions, type OpenAiAudioOptions } from './options.js';

interface VerboseTranscription {
  text: string;
  words?: Array<{ word: string; start: number; end: number }>;
}

/**
 * Recognition through `POST /audio/transcriptions` of an OpenAI-compatible server (OpenAI, speaches, vLLM,
 * LocalAI): one request per utterance at Shoal's endpoint (the VAD's segments), no interims. The call's
 * expectations go as the `prompt`, which Whisper-family models take as the likely words.
 */
export class OpenAiSpeechToText implements SpeechToText {
  readonly provider = provider;
  readonly capabilities: RecognitionCapabilities = {
    streaming: false,
    interimResults: false,
    wordTimings: true,
    sampleRates: [8000, 16000],
    encodings: ['pcm16'],
    keywordBoosting: true,
    endOfSpeech: false,
  };
  private readonly options: ReturnType<typeof resolveOptions>;
  private readonly segments: SegmentServiceSpeechToText;

  constructor(options: Partial<OpenAiAudioOptions> = {}) {
    this.options = resolveOptions(options);
    this.segments = new SegmentServiceSpeechToText((wav, signal, _traceparent, hints) => this.transcribeWav(wav, signal, hints), { minAudioMs: 0 });
  }

  forCall(call?: CallAudio): CallSpeechToText {
    const inner = this.segments.forCall(call);
    return { ...inner, provider, capabilities: this.capabilities };
  }

  takesSampleRate(sampleRate: number): boolean {
    return this.segments.takesSampleRate(sampleRate);
  }

  transcribe(utterance$: Observable<UtteranceFrame>, work?: WorkOptions): Observable<TranscriptEvent> {
    return this.segments.transcribe(utterance$, work);
  }

  private async transcribeWav(wav: Uint8Array, signal: AbortSignal, hints?: readonly Expectation[]): Promise<{ text: string; words: WordTiming[] }> {
    const o = this.options;
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(wav)], { type: 'audio/wav' }), 'utterance.wav');
    form.append('model', o.sttModel);
    form.append('response_format', 'verbose_json');
    if (o.wordTimestamps) form.append('timestamp_granularities[]', 'word');
    if (o.language) form.append('language', o.language);
    const terms = expectedTerms(hints, 30);
    if (terms.length > 0) form.append('prompt', terms.join(', '));
    const response = await post(`${o.baseUrl}/audio/transcriptions`, requireOpenAiKey(o.apiKey), form, { signal, timeoutMs: o.timeoutMs });
    const body = (await response.json()) as VerboseTranscription;
    const words = (body.words ?? []).map((word) => ({ word: word.word.trim(), startMs: Math.round(word.start * 1000), endMs: Math.round(word.end * 1000) }));
    return { text: (body.text ?? '').trim(), words };
  }
}

/** The key, or a `ProviderError` naming `OPENAI_API_KEY` (a local server that takes none still needs a value, e.g. `none`). */
export function requireOpenAiKey(apiKey: string | undefined): string {
  return requireKey(provider, apiKey, keyVariable);
}
