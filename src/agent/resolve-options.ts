import type { Tracer } from '@opentelemetry/api';
import type { Clock } from '../pipeline/clock.js';
import { systemClock } from '../pipeline/clock.js';
import type { PlayoutOptions } from '../pipeline/playout.js';
import type { UtteranceOptions } from '../pipeline/utterances.js';
import { defaults as failureDefaults, type FailureOptions } from './failure-policy.js';
import { modeSettings, type ModeSettings } from './modes.js';
import { defaults, type InterruptionOptions, type VoiceAgentOptions } from './options.js';
import { agentTracer } from './tracing.js';

/** Options with every default filled in. */
export interface ResolvedAgentOptions
  extends Omit<VoiceAgentOptions, 'modeSettings' | 'interruption' | 'clock' | 'tracer' | 'voice' | 'playout' | 'failures' | 'fallbackLine'> {
  modeSettings: ModeSettings;
  interruption: InterruptionOptions;
  voice: Partial<UtteranceOptions>;
  playout: Partial<PlayoutOptions>;
  clock: Clock;
  tracer: Tracer;
  userSilenceTimeoutMs: number;
  maxReprompts: number;
  maxCallMs: number;
  failures: FailureOptions;
  goodbyeLine: string;
  repromptLine: string;
  greet: boolean;
}

export function resolveAgentOptions(options: VoiceAgentOptions): ResolvedAgentOptions {
  return {
    ...options,
    modeSettings: modeSettings(options.mode, options.modeSettings),
    interruption: { ...defaults.interruption, ...options.interruption },
    voice: options.voice ?? {},
    playout: options.playout ?? {},
    clock: options.clock ?? systemClock,
    tracer: options.tracer ?? agentTracer(),
    userSilenceTimeoutMs: options.userSilenceTimeoutMs ?? defaults.userSilenceTimeoutMs,
    maxReprompts: options.maxReprompts ?? defaults.maxReprompts,
    maxCallMs: options.maxCallMs ?? defaults.maxCallMs,
    failures: resolveFailures(options),
    goodbyeLine: options.goodbyeLine ?? defaults.goodbyeLine,
    repromptLine: options.repromptLine ?? defaults.repromptLine,
    greet: options.greet ?? defaults.greet,
  };
}

function resolveFailures(options: VoiceAgentOptions): FailureOptions {
  const every = options.fallbackLine;
  const lines = every ? { listening: every, thinking: every, speaking: every } : failureDefaults.lines;
  return { ...failureDefaults, ...options.failures, lines: { ...lines, ...options.failures?.lines } };
}
