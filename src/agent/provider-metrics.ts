import { Counter } from 'prom-client';
import { metricsRegistry } from '../metrics/index.js';

const registers = [metricsRegistry];

const served = new Counter({
  name: 'shoal_provider_turns_total',
  help: 'Turns by the speech provider that served them: stage stt (the final transcript) or tts (the reply audio)',
  labelNames: ['stage', 'provider'] as const,
  registers,
});

const failovers = new Counter({
  name: 'shoal_provider_failovers_total',
  help: 'Hand-overs from a failing speech provider to the next of its list (--stt a,b / --tts a,b), by stage, providers and why',
  labelNames: ['stage', 'from', 'to', 'kind'] as const,
  registers,
});

export type ProviderStage = 'stt' | 'tts';

/** A turn's final transcript or reply audio came from `provider`. */
export function countServed(stage: ProviderStage, provider: string): void {
  served.inc({ stage, provider });
}

export function countFailover(stage: ProviderStage, from: string, to: string, kind: string): void {
  failovers.inc({ stage, from, to, kind });
}
