import { randomUUID } from 'node:crypto';
import { defer, type Observable } from 'rxjs';
import { ProviderError, requireKey, type SpeechPreparation, type SpeechRequest, type SpokenAudio, type SynthesisCapabilities, type TextToSpeech } from '../../src/agent/index.js';
import { ContextSocket, droppedSocket } from '../context-socket.js';
import { speakOnContext, type ContextProtocol } from '../context-reply.js';
import { openProviderSocket, websocketUrl } from '../provider-kit.js';
import { base64Bytes, CharacterWords, WireAudioFrames } from '../synthesis-kit.js';
import { baseUrlVariable, elevenLabsBaseUrl, elevenLabsDefaults, elevenLabsSampleRates, keyVariable, type ElevenLabsOptions } from './options.js';

const provider = 'elevenlabs';
/** ElevenLabs takes at most 5 contexts at once on one multi-stream socket. */
const contextsPerSocket = 5;
type Message = Record<string, unknown>;

/**
 * ElevenLabs streaming synthesis (`/v1/text-to-speech/{voice}/multi-stream-input`): sockets per output format shared
 * by the replies (at most 5 contexts each, ElevenLabs' limit; another socket opens for more), a context per reply, each text piece flushed as it comes, PCM at the line's rate (`ulaw_8000`
 * for a phone line), character alignment turned into words, `close_context` on barge-in.
 */
export class ElevenLabsTextToSpeech implements TextToSpeech {
  readonly provider = provider;
  readonly capabilities: SynthesisCapabilities;
  private readonly options: ElevenLabsOptions & { apiKey: string; baseUrl: string };
  private readonly sockets = new Map<string, ContextSocket[]>();

  constructor(options: Partial<ElevenLabsOptions> = {}) {
    const o = { ...elevenLabsDefaults, ...options };
    this.options = { ...o, apiKey: requireKey(provider, o.apiKey ?? process.env[keyVariable], keyVariable), baseUrl: o.baseUrl ?? process.env[baseUrlVariable] ?? elevenLabsBaseUrl };
    this.capabilities = { streamingInput: true, timings: o.syncAlignment ? 'character' : 'none', sampleRates: elevenLabsSampleRates, encodings: ['pcm16', 'mulaw'], cancel: true };
  }

  prepare(request?: SpeechPreparation): void {
    this.socketFor(this.outputFor(request?.sampleRate).format).warm();
  }

  speak(request: SpeechRequest): Observable<SpokenAudio> {
    return defer(() => {
      const output = this.outputFor(request.sampleRate);
      const contextId = randomUUID();
      const protocol = new ElevenLabsContext(contextId, this.options, new WireAudioFrames(output.sampleRate, output.encoding));
      return speakOnContext(this.socketFor(output.format), contextId, protocol, request.text$, { provider, firstAudioTimeoutMs: this.options.firstAudioTimeoutMs });
    });
  }

  /** Closes the sockets (at shutdown). */
  close(): void {
    for (const sockets of this.sockets.values()) sockets.forEach((socket) => socket.close());
    this.sockets.clear();
  }

  private outputFor(lineRate: number | undefined): { format: string; sampleRate: number; encoding: 'pcm16' | 'mulaw' } {
    if (lineRate === 8000 && this.options.phoneEncoding === 'mulaw') return { format: 'ulaw_8000', sampleRate: 8000, encoding: 'mulaw' };
    const sampleRate = lineRate !== undefined && (elevenLabsSampleRates as readonly number[]).includes(lineRate) ? lineRate : this.options.sampleRate;
    return { format: `pcm_${sampleRate}`, sampleRate, encoding: 'pcm16' };
  }

  private socketFor(format: string): ContextSocket {
    const sockets = this.sockets.get(format) ?? [];
    this.sockets.set(format, sockets);
    const roomy = sockets.find((socket) => socket.contexts < contextsPerSocket);
    if (roomy) return roomy;
    const o = this.options;
    const url = websocketUrl(o.baseUrl, `/v1/text-to-speech/${encodeURIComponent(o.voice)}/multi-stream-input`, {
      model_id: o.model,
      language_code: o.language,
      output_format: format,
      sync_alignment: o.syncAlignment,
      inactivity_timeout: o.inactivityTimeoutS,
    });
    const socket = new ContextSocket({
      provider,
      open: () => openProviderSocket(provider, url, { headers: { 'xi-api-key': o.apiKey }, timeoutMs: o.connectTimeoutMs, keyVariable }),
      contextOf: (message) => {
        const id = message['contextId'] ?? message['context_id'];
        return typeof id === 'string' ? id : undefined;
      },
      closed: closeError,
      idleCloseMs: o.idleCloseMs,
    });
    sockets.push(socket);
    return socket;
  }
}

/** ElevenLabs closes a socket with 1008 (policy violation) for a rejected key or an exhausted quota. */
function closeError(code: number, reason: string): ProviderError {
  if (code === 1008 && /api.?key|unauthori[sz]ed|auth/i.test(reason)) return new ProviderError(provider, 'auth', `the API key was rejected (${reason})`, { status: code, keyVariable });
  if (code === 1008 && /quota|credit|payment|subscription/i.test(reason)) return new ProviderError(provider, 'payment', reason, { status: code });
  if (code === 1008) return new ProviderError(provider, 'request', reason || 'policy violation', { status: code });
  return droppedSocket(provider, code, reason);
}

/** One reply's context: text and `flush` out, `close_context` to end or stop it; `audio`/`alignment`/`isFinal` in. */
class ElevenLabsContext implements ContextProtocol {
  private readonly words = new CharacterWords();

  constructor(
    private readonly contextId: string,
    private readonly options: ElevenLabsOptions,
    private readonly frames: WireAudioFrames,
  ) {}

  begin(): Message[] {
    return [{ text: ' ', context_id: this.contextId, ...(this.options.voiceSettings ? { voice_settings: this.options.voiceSettings } : {}) }];
  }

  text(piece: string): Message[] {
    return [{ text: `${piece.trim()} `, context_id: this.contextId, ...(this.options.flushEachPiece ? { flush: true } : {}) }];
  }

  end(): Message[] {
    return [
      { context_id: this.contextId, text: '', flush: true },
      { context_id: this.contextId, close_context: true },
    ];
  }

  cancel(): Message[] {
    return [{ context_id: this.contextId, close_context: true }];
  }

  receive(message: Message): { audio?: SpokenAudio[]; done?: boolean; error?: ProviderError } {
    if (typeof message['error'] === 'string') {
      const said = [message['error'], message['message']].filter((part) => typeof part === 'string' && part).join(': ');
      return { error: new ProviderError(provider, /quota|credit/i.test(said) ? 'payment' : 'server', said || 'an error message') };
    }
    const audio: SpokenAudio[] = [];
    if (typeof message['audio'] === 'string' && message['audio']) {
      const offsetMs = this.frames.durationMs;
      const frame = this.frames.push(base64Bytes(message['audio']));
      const alignment = message['alignment'] as { chars?: string[]; charStartTimesMs?: number[]; charDurationsMs?: number[] } | null | undefined;
      const words = alignment?.chars ? this.words.push(alignment.chars, alignment.charStartTimesMs ?? [], alignment.charDurationsMs ?? [], offsetMs) : [];
      if (frame) audio.push({ frame, ...(words.length ? { words } : {}), provider });
    }
    if (message['isFinal'] === true || message['is_final'] === true) {
      const words = this.words.end();
      if (words.length) audio.push({ frame: { samples: new Int16Array(0), sampleRate: this.frames.sampleRate, timestampMs: this.frames.durationMs }, words, provider });
      return { audio, done: true };
    }
    return { audio };
  }
}
