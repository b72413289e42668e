import type OpenAI from 'openai';
import type { Observable } from 'rxjs';
import { SegmentServiceSpeechToText, type CallAudio, type CallSpeechToText, type Expectation, type RecognitionCapabilities, type SpeechToText, type TranscriptEvent, type UtteranceFrame, type WorkOptions } from '../../src/agent/index.js';
import type { WordTiming } from '../../src/speech/index.js';
import { expectedTerms } from '../provider-kit.js';
import { openAiClient, provider, providerErrorOf } from './client.js';
import { openAiTranscriptionDefaults, type OpenAiTranscriptionOptions } from './options.js';

/**
 * Recognition on an OpenAI-compatible `POST /audio/transcriptions` (OpenAI, speaches, vLLM, LocalAI): not streaming,
 * so each utterance the VAD cuts is sent whole as a WAV when Shoal's endpoint fires; the call's expected words go in
 * `prompt`; word timings from `verbose_json` where the model gives them.
 */
export class OpenAiSpeechToText implements SpeechToText {
  readonly provider = provider;
  readonly capabilities: RecognitionCapabilities;
  private readonly options: OpenAiTranscriptionOptions;
  private readonly openai: ReturnType<typeof openAiClient>;
  private readonly segments: SegmentServiceSpeechToText;

  constructor(options: Partial<OpenAiTranscriptionOptions> = {}) {
    this.options = { ...openAiTranscriptionDefaults, ...options };
    this.openai = openAiClient(this.options);
    this.capabilities = {
      streaming: false,
      interimResults: false,
      wordTimings: this.asksForWords,
      sampleRates: [8000, 16000],
      encodings: ['pcm16'],
      keywordBoosting: this.options.maxPromptTerms > 0,
      endOfSpeech: false,
    };
    this.segments = new SegmentServiceSpeechToText((wav, signal, traceparent, hints) => this.request(wav, signal, traceparent, hints), { interimEveryMs: 0, minAudioMs: this.options.minAudioMs });
  }

  /** A phone caller's 8 kHz goes as an 8 kHz WAV, without resampling. */
  takesSampleRate(sampleRate: number): boolean {
    return this.segments.takesSampleRate(sampleRate);
  }

  forCall(call?: CallAudio): CallSpeechToText {
    const segments = this.segments.forCall(call);
    return {
      provider,
      capabilities: this.capabilities,
      transcribe: (utterance$, work) => segments.transcribe(utterance$, work),
      takesSampleRate: (rate) => this.takesSampleRate(rate),
      expect: (expectations) => segments.expect?.(expectations),
      release: () => segments.release(),
    };
  }

  transcribe(utterance$: Observable<UtteranceFrame>, work?: WorkOptions): Observable<TranscriptEvent> {
    return this.segments.transcribe(utterance$, work);
  }

  private get asksForWords(): boolean {
    return this.options.wordTimestamps && this.options.responseFormat === 'verbose_json';
  }

  private async request(wav: Uint8Array, signal: AbortSignal, traceparent: string | undefined, hints?: readonly Expectation[]): Promise<{ text: string; words: WordTiming[] }> {
    const o = this.options;
    const { sdk, client, baseUrl } = this.openai;
    const prompt = [o.prompt, expectedTerms(hints, o.maxPromptTerms).join(', ')].filter(Boolean).join(' ');
    try {
      const file = await sdk.toFile(wav, 'utterance.wav', { type: 'audio/wav' });
      const body: OpenAI.Audio.TranscriptionCreateParams = {
        file,
        model: o.model,
        response_format: o.responseFormat,
        ...(o.language ? { language: o.language } : {}),
        ...(prompt ? { prompt } : {}),
        ...(this.asksForWords ? { timestamp_granularities: ['word' as const] } : {}),
      };
      const result = (await client.audio.transcriptions.create(body, { signal, ...(traceparent ? { headers: { traceparent } } : {}) })) as unknown;
      return transcriptOf(result);
    } catch (error) {
      throw providerErrorOf(sdk, error, baseUrl);
    }
  }
}

/** The text and words of a `text`, `json` or `verbose_json` answer. */
function transcriptOf(result: unknown): { text: string; words: WordTiming[] } {
  if (typeof result === 'string') return { text: result.trim(), words: [] };
  const answer = result as { text?: unknown; words?: Array<{ word: string; start: number; end: number }> };
  const words = (answer.words ?? []).map((word) => ({ word: word.word.trim(), startMs: Math.round(word.start * 1000), endMs: Math.round(word.end * 1000) }));
  return { text: typeof answer.text === 'string' ? answer.text.trim() : '', words };
}
