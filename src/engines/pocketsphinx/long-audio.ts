/** Splitting long recordings into utterances short enough for one decoder pass. */

const sampleRate = 16000;
const frameSamples = 160;

export interface AudioPiece {
  startSample: number;
  pcm: Int16Array;
}

/**
 * Cuts audio longer than `maxMs` into pieces of at most `maxMs`, each cut placed at the quietest 10 ms
 * within the last `searchMs` of the piece, so words are rarely split.
 */
export function splitAtQuietPoints(pcm: Int16Array, maxMs = 20_000, searchMs = 5_000): AudioPiece[] {
  const maxSamples = (maxMs * sampleRate) / 1000;
  const searchSamples = (searchMs * sampleRate) / 1000;
  const pieces: AudioPiece[] = [];
  let start = 0;
  while (pcm.length - start > maxSamples) {
    const searchFrom = start + maxSamples - searchSamples;
    let bestAt = start + maxSamples;
    let bestEnergy = Infinity;
    for (let at = searchFrom; at + frameSamples <= start + maxSamples; at += frameSamples) {
      let energy = 0;
      for (let i = at; i < at + frameSamples; i++) energy += pcm[i]! * pcm[i]!;
      if (energy < bestEnergy) {
        bestEnergy = energy;
        bestAt = at + frameSamples / 2;
      }
    }
    pieces.push({ startSample: start, pcm: pcm.subarray(start, bestAt) });
    start = bestAt;
  }
  pieces.push({ startSample: start, pcm: pcm.subarray(start) });
  return pieces;
}
