import type { VoiceSettings } from '../../engines/index.js';
import type { Dialogue } from '../contracts.js';
import { interimEveryMsOf, modeSettings, type AgentMode, type ModeSettings } from '../modes.js';
import type { VoiceAgentOptions } from '../options.js';
import { StreamingEngineSpeechToText, type PauseOptions } from '../stt/streaming-engine-stt.js';
import { ChunkedTextToSpeech } from '../tts/chunked-tts.js';
import { VoiceAgent } from '../voice-agent.js';
import { streamingAsrArguments } from './asr-arguments.js';

export interface AgentStack {
  /** An agent running `dialogue` on this stack (one per call: dialogues keep per-call state); `overrides.mode` picks the call's mode. */
  agentFor(dialogue: Dialogue, overrides?: Partial<VoiceAgentOptions>): VoiceAgent;
  close(): Promise<void>;
}

export interface LocalStackOptions {
  mode: AgentMode;
  modeSettings?: Partial<ModeSettings>;
  voice: VoiceSettings;
  /** How the recognizer hears the caller's pauses (`StreamingEngineSttOptions`). */
  pauses?: Partial<PauseOptions>;
}

export const localDefaults: LocalStackOptions = { mode: 'balanced', voice: { voice: 'slt' } };

/**
 * Engines called in-process with no service in between: pocketsphinx streaming ASR, flite TTS per text
 * piece, Silero VAD. The lightest stack; tests and benchmarks use it to measure the framework alone.
 */
export async function createLocalAgentStack(options: Partial<LocalStackOptions> = {}): Promise<AgentStack> {
  const o = { ...localDefaults, ...options };
  const { FliteEngine, PocketSphinxEngine, SileroVad } = await import('../../engines/index.js');
  const mode = modeSettings(o.mode, o.modeSettings);
  const asr = new PocketSphinxEngine({ extraArguments: streamingAsrArguments });
  const flite = new FliteEngine();
  const stt = new StreamingEngineSpeechToText(asr, { ...o.pauses, interimEveryMs: interimEveryMsOf(mode) });
  await Promise.all([asr.preload(), flite.warmUp(), new SileroVad().ready().then((vad) => vad.release())]);
  const tts = new ChunkedTextToSpeech((text, signal) => flite.synthesize(text, o.voice, signal));
  return {
    agentFor: (dialogue, overrides = {}) =>
      new VoiceAgent({ dialogue, stt, tts, vad: () => new SileroVad(), mode: o.mode, modeSettings: o.modeSettings, ...overrides }),
    close: async () => {
      await asr.shutdown();
    },
  };
}
