import type { SpeechClient } from '../../client/index.js';
import type { EmbeddedService } from '../../service/index.js';
import type { VoiceActivityDetector } from '../../engines/index.js';
import type { SpeechToText, TextToSpeech } from '../contracts.js';
import { interimEveryMsOf, modeSettings, type AgentMode, type ModeSettings } from '../modes.js';
import { SegmentServiceSpeechToText } from '../stt/segment-service-stt.js';
import { StreamingEngineSpeechToText, type PauseOptions } from '../stt/streaming-engine-stt.js';
import { ChunkedTextToSpeech } from '../tts/chunked-tts.js';
import { FallbackTextToSpeech } from '../tts/fallback-tts.js';
import { FailoverTextToSpeech } from '../tts/failover-tts.js';
import { FailoverSpeechToText } from '../stt/failover-stt.js';
import { LiveTextToSpeech, liveTtsSampleRates } from '../tts/live-tts.js';
import { VoiceAgent } from '../voice-agent.js';
import { streamingAsrArguments } from './asr-arguments.js';
import type { AgentStack } from './local-stack.js';
import { unsampledTraceparent } from '../../tracing/index.js';

export interface EmbeddedStackOptions {
  /** The default mode of agents made by `agentFor`; each call may pick the other one. */
  mode: AgentMode;
  modeSettings?: Partial<ModeSettings>;
  /**
   * `engine`: pocketsphinx streaming in-process (true streaming); `service`: `/v1/asr` per VAD segment, with the
   * call's expectations as `hints`; a provider's recogniser (`deepgram({...})`); a list: failover in that order
   * (`[deepgram(), 'engine']`). Default: `service` when a running `service` is given, else `engine`.
   */
  stt: SttChoice | readonly SttChoice[];
  /**
   * `service`: the speech service's live `/v1/tts/live` (HTTP `/v1/tts` per piece when it fails); `local`: flite in
   * this process; a provider's synthesiser; a list: failover in that order. Default: `service`.
   */
  tts?: TtsChoice | readonly TtsChoice[];
  /** Voice model id for synthesis; the service's default voice when absent. */
  referenceId?: string;
  /** Use this running service instead of starting one (e.g. a hosted account). */
  service?: { url: string; apiKey: string };
  /**
   * Start the self-hosted speech service even when no `service` recogniser or synthesiser is chosen (the scenario
   * runner speaks its callers through it). Off: it starts only when one is.
   */
  withService?: boolean;
  /**
   * Audio idle gap that ends a live utterance on a `service` given here (the hosted protocol has no end-of-flush
   * event), ms. The service started here ends each utterance with its `utterance_end` event instead.
   */
  liveUtteranceIdleMs: number;
  /**
   * Start speech synthesis with the stack. Off: the TTS engine starts on the first synthesis (the first greeting
   * after the process starts takes ~0.3-0.7 s longer, once), and an agent waiting for its first call holds no
   * synthesis worker (~60-80 MB).
   */
  warmTts: boolean;
  /**
   * How the in-process recognizer (`stt: 'engine'`) hears the caller's pauses: the trailing quiet it hears and
   * whether it decodes the utterance at the pause (`StreamingEngineSttOptions`; defaults in its `defaults`).
   */
  pauses?: Partial<PauseOptions>;
  /**
   * Silero's quiet gate (`SileroVadOptions.quietBelowDbfs`): frames quieter than this, once the line has settled
   * quiet, skip the model. Default: -55 dBFS when the first recogniser is a streaming provider with its own end of
   * speech (`deepgram`), else every frame is scored; SHOAL_VAD_QUIET_BELOW_DBFS (`off`, or a level) overrides the
   * default.
   */
  vadQuietBelowDbfs?: number;
  /** Calls the in-process recognizer puts on one worker thread before it starts another (`PocketSphinxOptions.callsPerWorker`). */
  recognizerCallsPerWorker?: number;
}

/** A recogniser of the stack: one it builds (`engine`, `service`) or one given. */
export type SttChoice = 'engine' | 'service' | SpeechToText;
/** A synthesiser of the stack: one it builds (`service`, `local`) or one given. */
export type TtsChoice = 'service' | 'local' | TextToSpeech;

export const embeddedDefaults: Omit<EmbeddedStackOptions, 'stt'> = { mode: 'balanced', liveUtteranceIdleMs: 120, warmTts: false };

export interface EmbeddedAgentStack extends AgentStack {
  /** The speech service's client; absent when no `service` provider is chosen (nothing of it runs). */
  client: SpeechClient | undefined;
  /** The service the agents talk to; absent when no `service` provider is chosen. */
  serviceUrl: string | undefined;
  /** Replies that fell back from the live socket to HTTP `/v1/tts`. */
  readonly ttsFallbacks: number;
  /**
   * A VAD that scores in this thread, not on a VAD worker: for calls on a virtual clock, which wait for each
   * frame's score (one hop to a worker per frame costs more than the inference).
   */
  vadInThread(): VoiceActivityDetector;
}

/**
 * The whole stack in one process: the self-hosted speech service on a loopback port (or the given `service`), the
 * client, live TTS (falling back to HTTP `/v1/tts` per piece), pocketsphinx streaming ASR (or `/v1/asr` per
 * segment: pocketsphinx is then not loaded in this process) and Silero VAD. What `shoal talk`, `shoal agent` and the browser demo run on. The recognizer and VAD load here,
 * before the first call, so the first turn is as fast as the others; synthesis too with `warmTts`.
 */
export async function createEmbeddedAgentStack(options: Partial<EmbeddedStackOptions> = {}): Promise<EmbeddedAgentStack> {
  const o: EmbeddedStackOptions = { ...embeddedDefaults, ...options, stt: options.stt ?? (options.service ? 'service' : 'engine') };
  // Loaded here rather than at the top so importing the agent does not load the service and its engines.
  const [{ parseWav }, { SpeechClient }, { FliteEngine, PocketSphinxEngine, providerQuietBelowDbfs, quietBelowFromEnv, SileroVad, sileroInference }, { startEmbeddedService }] = await Promise.all([
    import('../../audio/index.js'),
    import('../../client/index.js'),
    import('../../engines/index.js'),
    import('../../service/index.js'),
  ]);
  const sttChoices: readonly SttChoice[] = Array.isArray(o.stt) ? o.stt : [o.stt as SttChoice];
  const first = sttChoices[0];
  const streamingProvider = typeof first === 'object' && first.capabilities?.streaming === true && first.capabilities.endOfSpeech === true;
  const vadOptions = { quietBelowDbfs: o.vadQuietBelowDbfs ?? quietBelowFromEnv(process.env, streamingProvider ? providerQuietBelowDbfs : -Infinity) };
  const ttsChoices: readonly TtsChoice[] = o.tts === undefined ? ['service'] : Array.isArray(o.tts) ? o.tts : [o.tts as TtsChoice];
  const needsService = o.withService === true || sttChoices.includes('service') || ttsChoices.includes('service');
  let embedded: EmbeddedService | undefined;
  const service = needsService ? (o.service ?? (embedded = await startEmbeddedService({ logLevel: 'warn', warmUp: o.warmTts }))) : undefined;
  const client = service && new SpeechClient({ baseUrl: service.url, apiKey: service.apiKey, live: { utteranceIdleMs: o.liveUtteranceIdleMs, utteranceEndEvents: embedded !== undefined ? true : 'auto' } });
  const asr = sttChoices.includes('engine') ? new PocketSphinxEngine({ extraArguments: streamingAsrArguments, ...(o.recognizerCallsPerWorker ? { callsPerWorker: o.recognizerCallsPerWorker } : {}) }) : undefined;
  const flite = ttsChoices.includes('local') ? new FliteEngine() : undefined;
  let fallbacks = 0;
  const lives: LiveTextToSpeech[] = [];
  const perMode = new Map<AgentMode, { stt: SpeechToText; tts: TextToSpeech }>();
  // Only asked for when a `service` provider is chosen, which started (or was given) the service.
  const serviceClient = (): SpeechClient => {
    if (!client) throw new Error('no speech service in this stack: choose a service provider or give withService');
    return client;
  };
  const enginesFor = (mode: AgentMode) => {
    const known = perMode.get(mode);
    if (known) return known;
    const settings = modeSettings(mode, o.modeSettings);
    const interimEveryMs = interimEveryMsOf(settings);
    const recogniser = (choice: SttChoice): SpeechToText => {
      if (typeof choice === 'object') return choice;
      if (choice === 'engine' && asr) return named(new StreamingEngineSpeechToText(asr, { ...o.pauses, interimEveryMs }), 'local');
      return named(
        new SegmentServiceSpeechToText(
          async (wav, signal, traceparent, hints) => {
            const result = await serviceClient().transcribe(wav, { signal, traceparent, language: 'en', ...(hints ? { hints } : {}) });
            return { text: result.text, words: [], ...(result.expected !== undefined ? { expected: result.expected } : {}), ...(result.charge !== undefined ? { charge: result.charge } : {}) };
          },
          { interimEveryMs: interimEveryMs > 0 ? Math.max(300, interimEveryMs) : 0 },
        ),
        'service',
      );
    };
    const stts = sttChoices.map(recogniser);
    const stt = stts.length === 1 ? stts[0]! : new FailoverSpeechToText(stts);
    const serviceTts = (): TextToSpeech => {
      const live = new LiveTextToSpeech(serviceClient(), { latency: settings.ttsLatency, referenceId: o.referenceId });
      lives.push(live);
      const http = new ChunkedTextToSpeech(async (text, signal, traceparent, rate) => {
        const sampleRate = rate !== undefined && liveTtsSampleRates.includes(rate) ? rate : 16000;
        const stream = serviceClient().tts({ text, format: 'wav', sample_rate: sampleRate, latency: settings.ttsLatency, reference_id: o.referenceId ?? null }, { signal, traceparent });
        const parsed = parseWav(await stream.collect());
        return { samples: parsed.samples, sampleRate: parsed.sampleRate, words: [], ...(stream.charge !== undefined ? { charge: stream.charge } : {}) };
      });
      return named(new FallbackTextToSpeech(live, http, () => fallbacks++), 'service');
    };
    const synthesiser = (choice: TtsChoice): TextToSpeech => {
      if (typeof choice === 'object') return choice;
      if (choice === 'local' && flite) return named(new ChunkedTextToSpeech((text, signal) => flite.synthesize(text, { voice: 'slt' }, signal)), 'local');
      return serviceTts();
    };
    const ttss = ttsChoices.map(synthesiser);
    const engines = { stt, tts: ttss.length === 1 ? ttss[0]! : new FailoverTextToSpeech(ttss) };
    perMode.set(mode, engines);
    return engines;
  };
  try {
    await Promise.all([
      asr?.preload(),
      flite?.warmUp(),
      new SileroVad().ready().then((vad) => vad.release()),
      // Under an unsampled trace: a warm-up is no call, and must not show up as a trace of its own.
      o.warmTts && client ? client.tts({ text: 'Ready.', format: 'wav', sample_rate: 16000 }, { traceparent: unsampledTraceparent() }).collect() : undefined,
    ]);
  } catch (error) {
    await asr?.shutdown();
    await embedded?.close();
    throw error;
  }
  return {
    client,
    serviceUrl: service?.url,
    get ttsFallbacks() {
      return fallbacks;
    },
    vadInThread: () => new SileroVad(sileroInference(), vadOptions),
    agentFor: (dialogue, overrides = {}) => {
      const mode = overrides.mode ?? o.mode;
      return new VoiceAgent({ dialogue, ...enginesFor(mode), vad: () => new SileroVad(undefined, vadOptions), mode, modeSettings: o.modeSettings, ...overrides });
    },
    close: async () => {
      for (const live of lives) live.close();
      // Providers' sockets (Cartesia's, ElevenLabs') would keep the process alive until their idle close.
      for (const choice of [...sttChoices, ...ttsChoices]) if (typeof choice === 'object') (choice as { close?(): void }).close?.();
      await asr?.shutdown();
      await embedded?.close();
    },
  };
}

/** Gives a stack-built engine its provider name (for turn reports and metrics) without wrapping it. */
function named<T extends SpeechToText | TextToSpeech>(engine: T, provider: string): T {
  Object.defineProperty(engine, 'provider', { value: provider, enumerable: true });
  return engine;
}
