import { randomUUID } from 'node:crypto';
import { defer, type Observable } from 'rxjs';
import { failureOfStatus, ProviderError, requireKey, type SpeechPreparation, type SpeechRequest, type SpokenAudio, type SynthesisCapabilities, type TextToSpeech } from '../../src/agent/index.js';
import { ContextSocket, droppedSocket } from '../context-socket.js';
import { speakOnContext, type ContextProtocol } from '../context-reply.js';
import { openProviderSocket, websocketUrl } from '../provider-kit.js';
import { base64Bytes, timedWords, WireAudioFrames } from '../synthesis-kit.js';
import { baseUrlVariable, cartesiaBaseUrl, cartesiaDefaults, cartesiaSampleRates, keyVariable, type CartesiaOptions } from './options.js';

const provider = 'cartesia';

/**
 * Cartesia streaming synthesis (`/tts/websocket`): one socket shared by the replies, one `context_id` per reply,
 * each text piece sent with `continue: true` as the dialogue streams it, raw audio at the line's rate (mu-law at a
 * phone line's 8 kHz), word timestamps, `cancel` on barge-in.
 */
export class CartesiaTextToSpeech implements TextToSpeech {
  readonly provider = provider;
  readonly capabilities: SynthesisCapabilities;
  private readonly options: CartesiaOptions & { apiKey: string; baseUrl: string };
  private readonly socket: ContextSocket;

  constructor(options: Partial<CartesiaOptions> = {}) {
    const o = { ...cartesiaDefaults, ...options };
    this.options = { ...o, apiKey: requireKey(provider, o.apiKey ?? process.env[keyVariable], keyVariable), baseUrl: o.baseUrl ?? process.env[baseUrlVariable] ?? cartesiaBaseUrl };
    this.capabilities = { streamingInput: true, timings: o.timestamps ? 'word' : 'none', sampleRates: cartesiaSampleRates, encodings: ['pcm16', 'mulaw'], cancel: true };
    this.socket = new ContextSocket({
      provider,
      open: () =>
        openProviderSocket(provider, websocketUrl(this.options.baseUrl, '/tts/websocket', { cartesia_version: this.options.version }), {
          headers: { Authorization: `Bearer ${this.options.apiKey}`, 'Cartesia-Version': this.options.version },
          timeoutMs: this.options.connectTimeoutMs,
          keyVariable,
        }),
      contextOf: (message) => (typeof message['context_id'] === 'string' ? message['context_id'] : undefined),
      closed: (code, reason) => droppedSocket(provider, code, reason),
      idleCloseMs: this.options.idleCloseMs,
    });
  }

  prepare(_request?: SpeechPreparation): void {
    this.socket.warm();
  }

  speak(request: SpeechRequest): Observable<SpokenAudio> {
    return defer(() => {
      const contextId = randomUUID();
      const protocol = new CartesiaContext(contextId, this.options, this.outputFor(request.sampleRate));
      return speakOnContext(this.socket, contextId, protocol, request.text$, { provider, firstAudioTimeoutMs: this.options.firstAudioTimeoutMs });
    });
  }

  /** Closes the socket (at shutdown). */
  close(): void {
    this.socket.close();
  }

  private outputFor(lineRate: number | undefined): { sampleRate: number; encoding: 'pcm_s16le' | 'pcm_mulaw' } {
    const sampleRate = lineRate !== undefined && (cartesiaSampleRates as readonly number[]).includes(lineRate) ? lineRate : this.options.sampleRate;
    return { sampleRate, encoding: sampleRate === 8000 && this.options.phoneEncoding === 'mulaw' ? 'pcm_mulaw' : 'pcm_s16le' };
  }
}

/** One reply's `context_id`: generation requests out, `chunk`/`timestamps`/`done`/`error` in. */
class CartesiaContext implements ContextProtocol {
  private readonly frames: WireAudioFrames;

  constructor(
    private readonly contextId: string,
    private readonly options: CartesiaOptions,
    private readonly output: { sampleRate: number; encoding: 'pcm_s16le' | 'pcm_mulaw' },
  ) {
    this.frames = new WireAudioFrames(output.sampleRate, output.encoding === 'pcm_mulaw' ? 'mulaw' : 'pcm16');
  }

  begin(): Record<string, unknown>[] {
    return [];
  }

  text(piece: string): Record<string, unknown>[] {
    return [this.request(`${piece.trim()} `, true)];
  }

  end(): Record<string, unknown>[] {
    return [this.request('', false)];
  }

  cancel(): Record<string, unknown>[] {
    return [{ context_id: this.contextId, cancel: true }];
  }

  receive(message: Record<string, unknown>): { audio?: SpokenAudio[]; done?: boolean; error?: ProviderError } {
    switch (message['type']) {
      case 'chunk': {
        const frame = typeof message['data'] === 'string' ? this.frames.push(base64Bytes(message['data'])) : undefined;
        return frame ? { audio: [{ frame, provider }] } : {};
      }
      case 'timestamps': {
        const stamps = message['word_timestamps'] as { words?: string[]; start?: number[]; end?: number[] } | undefined;
        const words = stamps?.words?.length ? timedWords(stamps.words, stamps.start ?? [], stamps.end ?? []) : [];
        if (words.length === 0) return {};
        return { audio: [{ frame: { samples: new Int16Array(0), sampleRate: this.frames.sampleRate, timestampMs: this.frames.durationMs }, words, provider }] };
      }
      case 'done':
        return { done: true };
      case 'error': {
        const status = typeof message['status_code'] === 'number' ? message['status_code'] : 500;
        const said = [message['title'], message['message']].filter((part) => typeof part === 'string' && part).join(': ');
        return { error: new ProviderError(provider, failureOfStatus(status), `error ${status}${said ? `: ${said}` : ''}`, { status, ...(failureOfStatus(status) === 'auth' ? { keyVariable } : {}) }) };
      }
      default:
        return {};
    }
  }

  private request(transcript: string, more: boolean): Record<string, unknown> {
    const o = this.options;
    return {
      context_id: this.contextId,
      model_id: o.model,
      transcript,
      voice: { mode: 'id', id: o.voice },
      language: o.language,
      output_format: { container: 'raw', encoding: this.output.encoding, sample_rate: this.output.sampleRate },
      add_timestamps: o.timestamps,
      continue: more,
      ...(o.maxBufferDelayMs !== undefined ? { max_buffer_delay_ms: o.maxBufferDelayMs } : {}),
    };
  }
}
