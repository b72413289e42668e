import { createHash } from 'node:crypto';
import { EngineBusyError, MediaPool, type VoiceSettings } from '../../engines/index.js';
import { ServiceError } from '../accounts.js';
import type { ReferenceAudio } from './schema.js';

export const defaults = {
  /** How many analysed reference sets are remembered (keyed by the audio's hash). */
  cacheEntries: 64,
};

const cache = new Map<string, VoiceSettings>();

/** A failure of the analysis as the client must read it: which reference could not be decoded, or too little speech. */
function referenceError(error: unknown, where: string): unknown {
  if (error instanceof EngineBusyError) return error;
  const index = (error as { index?: unknown }).index;
  const message = (error as Error).message;
  if (typeof index === 'number') return new ServiceError(400, `${where}[${index}].audio could not be read: ${message}`);
  return new ServiceError(400, `${where}: ${message}; send 10 to 30 seconds of clear speech`);
}

/**
 * The nearest local voice to inline reference audio: the references' pitch and speaking rate are measured
 * and the closest flite voice is set to them. An approximation of cloning, not a neural clone.
 */
export async function voiceFromReferences(references: ReferenceAudio[], where: string): Promise<VoiceSettings> {
  if (references.length === 0) throw new ServiceError(400, `${where} is empty; give at least one {audio, text} reference`);
  const hash = createHash('sha256');
  for (const reference of references) hash.update(reference.audio).update(reference.text);
  const key = hash.digest('hex');
  const known = cache.get(key);
  if (known) return { ...known };
  let voice: VoiceSettings;
  try {
    // Decoding, resampling and the pitch/rate analysis run in a media worker.
    voice = await MediaPool.shared().voiceOfFiles(references.map((reference) => reference.audio));
  } catch (error) {
    throw referenceError(error, where);
  }
  cache.set(key, voice);
  if (cache.size > defaults.cacheEntries) cache.delete(cache.keys().next().value!);
  return { ...voice };
}
