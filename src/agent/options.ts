import type { CallRecords } from './records/recorder.js';
import type { ListeningOptions } from './expected-answers.js';
import type { Tracer } from '@opentelemetry/api';
import type { Logger } from '../logging/index.js';
import type { VoiceActivityDetector } from '../engines/index.js';
import type { Clock } from '../pipeline/clock.js';
import type { PlayoutOptions } from '../pipeline/playout.js';
import type { UtteranceOptions } from '../pipeline/utterances.js';
import type { Dialogue, SpeechToText, TextToSpeech } from './contracts.js';
import type { FailureOptions } from './failure-policy.js';
import type { AgentMode, ModeSettings } from './modes.js';

/** When caller speech over the agent counts as an interruption. Durations in ms. */
export interface InterruptionOptions {
  enabled: boolean;
  /** Caller speech this long while the agent speaks pauses the agent's audio (and clears the transport). */
  minSpeechMs: number;
  /** This many words that are not backchannels turn the pause into an interruption. */
  minWords: number;
  /** Words that never interrupt ("mm-hmm", "yeah", "ok"...), compared lower-case without punctuation. */
  backchannels: readonly string[];
  /** A pause with no words after this long is a false interruption: the agent resumes where it stopped. */
  falseInterruptionTimeoutMs: number;
}

export interface VoiceAgentOptions {
  dialogue: Dialogue;
  stt: SpeechToText;
  tts: TextToSpeech;
  /** One detector per call (its state is per call; the model session may be shared inside). */
  vad: () => VoiceActivityDetector;
  mode: AgentMode;
  modeSettings?: Partial<ModeSettings>;
  /** Speech detection thresholds; the endpoint silence comes from the mode. */
  voice?: Partial<Omit<UtteranceOptions, 'minSilenceMs'>>;
  interruption?: Partial<InterruptionOptions>;
  playout?: Partial<PlayoutOptions>;
  /** Silence from the caller after the agent finished speaking before a reprompt. */
  userSilenceTimeoutMs?: number;
  /** Reprompts before the agent says goodbye and hangs up. */
  maxReprompts?: number;
  maxCallMs?: number;
  /**
   * Spoken when a turn fails: a line per stage (`listening`, `thinking`, `speaking`) and the hang-up after
   * repeated failures (defaults in `failureDefaults`).
   */
  failures?: Partial<Omit<FailureOptions, 'lines'>> & { lines?: Partial<FailureOptions['lines']> };
  /** @deprecated one line for every failed stage; use `failures.lines`. */
  fallbackLine?: string;
  /** Spoken before hanging up after the reprompts or at the maximum call length. */
  goodbyeLine?: string;
  /** Spoken on a silence timeout when the dialogue has no reprompt of its own. */
  repromptLine?: string;
  greet?: boolean;
  /** How the dialogue's expectations lengthen or shorten the endpoint. */
  listening?: Partial<ListeningOptions>;
  /** Time source: wall clock by default; a VirtualClock makes a run deterministic. */
  clock?: Clock;
  tracer?: Tracer;
  /** Each call logs through a child of this pino logger (call id, trace id): start, one line per turn, errors, end. */
  logger?: Logger;
  /** Keeps a record of every call (docs/call-records.md): its turns, tools, keypad entries, errors and how it ended. */
  records?: CallRecords;
}

export const defaults = {
  interruption: {
    enabled: true,
    minSpeechMs: 200,
    minWords: 1,
    backchannels: ['mm', 'mmhmm', 'mm-hmm', 'mhm', 'uh-huh', 'uhhuh', 'hmm', 'yeah', 'yes', 'yep', 'ok', 'okay', 'right', 'sure', 'uh', 'um', 'ah', 'oh', 'i see', 'got it', 'alright', 'all right'],
    falseInterruptionTimeoutMs: 1500,
  } satisfies InterruptionOptions,
  userSilenceTimeoutMs: 8000,
  maxReprompts: 2,
  maxCallMs: 15 * 60_000,
  goodbyeLine: 'Thank you for calling. Goodbye.',
  repromptLine: 'Are you still there?',
  greet: true,
} as const;
