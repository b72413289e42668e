import type { VoiceSettings } from '../engines/types.js';
import type { Principal, VoiceResolver } from './accounts.js';

export interface BuiltinVoice {
  id: string;
  description: string;
  settings: VoiceSettings;
}

/** The voices every server knows, usable as `reference_id` (docs/voices.md lists them). */
export const builtinVoices: readonly BuiltinVoice[] = [
  { id: 'slt', description: 'flite slt: US English female', settings: { voice: 'slt' } },
  { id: 'rms', description: 'flite rms: US English male', settings: { voice: 'rms' } },
  { id: 'awb', description: 'flite awb: Scottish English male', settings: { voice: 'awb' } },
  { id: 'kal16', description: 'flite kal16: US English male, 16 kHz', settings: { voice: 'kal16' } },
  { id: 'kal', description: 'flite kal: US English male, 8 kHz (telephone quality)', settings: { voice: 'kal' } },
  { id: 'bright', description: 'slt, higher and a little quicker', settings: { voice: 'slt', pitchHz: 205, rate: 1.1 } },
  { id: 'calm', description: 'slt, lower and slower', settings: { voice: 'slt', pitchHz: 150, rate: 0.85 } },
  { id: 'deep', description: 'awb, deep and unhurried', settings: { voice: 'awb', pitchHz: 90, rate: 0.9 } },
  { id: 'narrator', description: 'awb, measured storytelling pace', settings: { voice: 'awb', pitchHz: 115, rate: 0.88 } },
  { id: 'brisk', description: 'kal16, higher, fast and clipped', settings: { voice: 'kal16', pitchHz: 110, rate: 1.3 } },
];

const byId = new Map(builtinVoices.map((voice) => [voice.id, voice]));

/** Resolves built-in voice ids; `fallback` (part 2's voice model store) is asked for any other id. */
export class BuiltinVoices implements VoiceResolver {
  constructor(private readonly fallback?: VoiceResolver) {}

  async resolve(referenceId: string, principal: Principal): Promise<VoiceSettings | null> {
    const voice = byId.get(referenceId);
    if (voice) return { ...voice.settings };
    return this.fallback ? this.fallback.resolve(referenceId, principal) : null;
  }

  async recordUse(referenceId: string): Promise<void> {
    if (!byId.has(referenceId)) await this.fallback?.recordUse?.(referenceId);
  }
}

/** Text for `shoal serve --help` and the docs. */
export function describeBuiltinVoices(): string {
  const width = Math.max(...builtinVoices.map((voice) => voice.id.length));
  return builtinVoices.map((voice) => `  ${voice.id.padEnd(width)}  ${voice.description}`).join('\n');
}
