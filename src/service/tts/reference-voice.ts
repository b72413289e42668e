import { createHash } from 'node:crypto';
import { concatSamples, decodeAudio, resample } from '../../audio/index.js';
import { analyzeVoice, nearestVoice, type VoiceSettings } from '../../engines/index.js';
import { ServiceError } from '../accounts.js';
import type { ReferenceAudio } from './schema.js';

export const defaults = {
  /** Rate the references are analysed at. */
  analysisSampleRate: 16000,
  /** How many analysed reference sets are remembered (keyed by the audio's hash). */
  cacheEntries: 64,
};

const cache = new Map<string, VoiceSettings>();

async function decodeReference(reference: ReferenceAudio, where: string): Promise<Int16Array> {
  try {
    const decoded = await decodeAudio(reference.audio);
    return await resample(decoded.samples, decoded.sampleRate, defaults.analysisSampleRate);
  } catch (error) {
    throw new ServiceError(400, `${where}.audio could not be read: ${(error as Error).message}`);
  }
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
  const samples = concatSamples(await Promise.all(references.map((reference, index) => decodeReference(reference, `${where}[${index}]`))));
  let voice: VoiceSettings;
  try {
    voice = nearestVoice(analyzeVoice(samples, defaults.analysisSampleRate));
  } catch (error) {
    throw new ServiceError(400, `${where}: ${(error as Error).message}; send 10 to 30 seconds of clear speech`);
  }
  cache.set(key, voice);
  if (cache.size > defaults.cacheEntries) cache.delete(cache.keys().next().value!);
  return { ...voice };
}
