import type { FileInput } from './audio-input.js';
import { transcribe, type TranscribeOptions } from './asr.js';
import { resolveClientOptions, type ClientOptions, type LiveOptions, type ResolvedClientOptions } from './defaults.js';
import { HttpTransport } from './http.js';
import { LiveTtsSession } from './live-session.js';
import { streamTtsWithTimestamps, type TimestampedChunk } from './timestamps.js';
import { startCallTrace } from './tracing.js';
import { streamTts, validateTtsRequest, type AudioStream, type TtsOptions } from './tts.js';
import type { Transcription, TtsModel, TtsRequest, VoiceDesignRequest } from './types.js';
import { designVoice, type DesignedVoice, type VoiceDesignOptions } from './voice-design.js';
import { VoiceModels } from './voice-models.js';
import { Wallet } from './wallet.js';
import { spanAttributes } from '../tracing/index.js';

export interface LiveTtsOptions extends LiveOptions {
  /** `model` header of the upgrade; defaults to the client's model. */
  model?: TtsModel;
  /** Use `/v1/tts/live/with-timestamp`: audio events carry `content` and `alignment`. */
  timestamps?: boolean;
  /** Aborts the upgrade, and closes the session once open. */
  signal?: AbortSignal;
  headers?: Record<string, string>;
  /** A W3C `traceparent` to continue instead of the active OpenTelemetry context. */
  traceparent?: string;
}

/**
 * Client of the speech service: the hosted one or `shoal serve`. TTS as chunked audio, with timestamps,
 * or over a live WebSocket; ASR of any length; voice design; voice models; wallet.
 */
export class SpeechClient {
  readonly options: ResolvedClientOptions;
  readonly voiceModels: VoiceModels;
  readonly wallet: Wallet;
  private readonly http: HttpTransport;

  constructor(options: ClientOptions = {}) {
    this.options = resolveClientOptions(options);
    this.http = new HttpTransport(this.options);
    this.voiceModels = new VoiceModels(this.http);
    this.wallet = new Wallet(this.http);
  }

  /** `POST /v1/tts`: audio chunks as they arrive (the request starts when iteration starts). */
  tts(request: TtsRequest, options: TtsOptions = {}): AudioStream {
    return streamTts(this.http, request, options);
  }

  /** `POST /v1/tts/stream/with-timestamp`: audio with word alignments, the cumulative rule applied. */
  ttsWithTimestamps(request: TtsRequest, options: TtsOptions = {}): AsyncIterable<TimestampedChunk> {
    return streamTtsWithTimestamps(this.http, request, options);
  }

  /** Opens a live TTS session over one WebSocket; `request` is the `start` request (its `text` is ignored). */
  async live(request: Omit<TtsRequest, 'text'> & { text?: string } = {}, options: LiveTtsOptions = {}): Promise<LiveTtsSession> {
    const start = { ...request, text: '' };
    validateTtsRequest(start);
    const model = options.model ?? this.options.model;
    const trace = startCallTrace('tts.live', { [spanAttributes.ttsModel]: model }, options.traceparent);
    const headers = this.http.baseHeaders({ model, ...options.headers, ...trace.headers });
    const { model: _model, timestamps, signal, headers: _headers, traceparent: _traceparent, ...liveOptions } = options;
    return LiveTtsSession.open(
      { baseUrl: this.options.baseUrl, headers, request: start, timestamps: timestamps ?? false, options: { ...this.options.live, ...liveOptions }, trace, agent: this.options.agent },
      signal,
    );
  }

  /** `POST /v1/asr`, splitting inputs over the service's limits at silences. */
  transcribe(audio: FileInput, options: TranscribeOptions = {}): Promise<Transcription> {
    return transcribe(this.http, audio, options);
  }

  /** `POST /v1/voice-design`: candidates with decoded audio. */
  designVoice(request: VoiceDesignRequest, options: VoiceDesignOptions = {}): Promise<DesignedVoice[]> {
    return designVoice(this.http, request, options);
  }
}
