import type { ChunkOptions } from '../pipeline/chunk-text.js';

export type AgentMode = 'low-latency' | 'balanced';

/** What a turn-taking mode decides. All durations in ms. */
export interface ModeSettings {
  /** Silence after speech that ends the caller's turn (the endpoint). */
  endpointSilenceMs: number;
  /** Ask recognition for interim transcripts while the caller speaks. */
  interimTranscripts: boolean;
  /** How often (ms of audio) an interim transcript is produced. */
  interimEveryMs: number;
  /** Start the dialogue on a stable interim transcript before the endpoint; restarted if the final differs. */
  preemptiveDialogue: boolean;
  /** An interim is stable when the caller has been silent this long with it unchanged. */
  stableInterimMs: number;
  /** Where the reply text is cut for speech: the first piece at a clause, or whole sentences. */
  firstChunk: ChunkOptions['firstChunk'];
  /** The live TTS latency tier asked for. */
  ttsLatency: 'low' | 'balanced' | 'normal';
  /**
   * Once the recogniser's provider says the caller stopped (`TranscriptEvent.endOfSpeech`: Deepgram's
   * `speech_final`, `UtteranceEnd`), the endpoint needs no more silence than this (never more than it would).
   */
  endOfSpeechSilenceMs: number;
}

/** Mode defaults; each can be overridden per agent with `VoiceAgentOptions.modeSettings`. */
export const defaults: Record<AgentMode, ModeSettings> = {
  'low-latency': {
    endpointSilenceMs: 200,
    interimTranscripts: true,
    interimEveryMs: 96,
    preemptiveDialogue: true,
    stableInterimMs: 96,
    firstChunk: 'clause',
    ttsLatency: 'low',
    endOfSpeechSilenceMs: 100,
  },
  balanced: {
    endpointSilenceMs: 500,
    interimTranscripts: false,
    interimEveryMs: 0,
    preemptiveDialogue: false,
    stableInterimMs: 0,
    firstChunk: 'sentence',
    ttsLatency: 'balanced',
    endOfSpeechSilenceMs: 250,
  },
};

export function modeSettings(mode: AgentMode, overrides: Partial<ModeSettings> = {}): ModeSettings {
  const base = defaults[mode];
  if (!base) throw new RangeError(`unknown mode "${String(mode)}"; use low-latency or balanced`);
  return { ...base, ...overrides };
}

/** How often recognition should give interim transcripts in these settings (ms of audio); 0 for finals only. */
export function interimEveryMsOf(settings: ModeSettings): number {
  return settings.interimTranscripts ? settings.interimEveryMs : 0;
}
