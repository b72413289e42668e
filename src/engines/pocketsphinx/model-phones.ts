import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The base phones of an acoustic model in the order of its binary model definition (`mdef`, pocketsphinx's
 * "BMDF" format), and which of them are fillers: the phones of the words in `noisedict` (noise, speech-like
 * sounds) other than the silence phone. Undefined when the model's files are not in these formats.
 */
export function modelPhones(modelDir: string): { phones: string[]; fillers: Set<string> } | undefined {
  let mdef: Buffer;
  let noisedict: string;
  try {
    mdef = readFileSync(join(modelDir, 'mdef'));
    noisedict = readFileSync(join(modelDir, 'noisedict'), 'utf8');
  } catch {
    return undefined;
  }
  if (mdef.length < 12 || mdef.toString('latin1', 0, 4) !== 'BMDF') return undefined;
  // After the magic word: a version, the length of the format description that follows, then its counts.
  const counts = 12 + mdef.readInt32LE(8);
  if (mdef.length < counts + 40) return undefined;
  const phoneCount = mdef.readInt32LE(counts);
  const silence = mdef.readInt32LE(counts + 36);
  const phones = mdef.toString('latin1', counts + 40).split('\0').slice(0, phoneCount);
  if (phones.length !== phoneCount || !phones[silence]) return undefined;
  const fillers = noisedict
    .split('\n')
    .flatMap((line) => line.trim().split(/\s+/).slice(1))
    .filter((phone) => phone.length > 0 && phone !== phones[silence]);
  return { phones, fillers: new Set(fillers) };
}
