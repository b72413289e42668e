import type { FliteVoice } from '../../engines/types.js';
import { ServiceError } from '../accounts.js';

/** What a `model` header value selects on this server: the local engine's configuration for that tier. */
export interface ModelProfile {
  id: ModelId;
  /** Voice used when the request names no reference. */
  defaultVoice: FliteVoice;
  /** Whether `prosody.normalize_loudness` is honoured (the interface applies it to the S2 models only). */
  loudnessNormalization: boolean;
}

export const modelIds = ['s1', 's2-pro', 's2.1-pro', 's2.1-pro-free'] as const;
export type ModelId = (typeof modelIds)[number];

export const defaultModel: ModelId = 's2.1-pro-free';

export const modelProfiles: Record<ModelId, ModelProfile> = {
  s1: { id: 's1', defaultVoice: 'slt', loudnessNormalization: false },
  's2-pro': { id: 's2-pro', defaultVoice: 'slt', loudnessNormalization: true },
  's2.1-pro': { id: 's2.1-pro', defaultVoice: 'slt', loudnessNormalization: true },
  's2.1-pro-free': { id: 's2.1-pro-free', defaultVoice: 'kal16', loudnessNormalization: true },
};

function headerValue(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  return value?.trim() || undefined;
}

/** The profile for a `model` header over HTTP: missing means the default, unknown is a 400. */
export function modelForHttp(header: string | string[] | undefined): ModelProfile {
  const value = headerValue(header);
  if (value === undefined) return modelProfiles[defaultModel];
  if ((modelIds as readonly string[]).includes(value)) return modelProfiles[value as ModelId];
  throw new ServiceError(400, `unknown model '${value}'; the model header must be one of ${modelIds.join(', ')}`);
}

/** The profile for a `model` header on the live WebSocket: missing or unknown falls back to the default. */
export function modelForLive(header: string | string[] | undefined): ModelProfile {
  const value = headerValue(header);
  return value && (modelIds as readonly string[]).includes(value) ? modelProfiles[value as ModelId] : modelProfiles[defaultModel];
}
