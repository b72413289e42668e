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

/**
 * Splits a piece into its voiced regions: runs of speech separated by at least `minGapMs` of silence, each
 * kept with `paddingMs` of context. Whole-utterance decoding normalises by the utterance's mean, which long
 * silence would otherwise dominate. A piece with nothing voiced gives no regions.
 */
export function voicedRegions(piece: AudioPiece, minGapMs = 600, paddingMs = 300): AudioPiece[] {
  const frameRms: number[] = [];
  for (let at = 0; at + frameSamples <= piece.pcm.length; at += frameSamples) {
    let energy = 0;
    for (let i = at; i < at + frameSamples; i++) energy += piece.pcm[i]! * piece.pcm[i]!;
    frameRms.push(Math.sqrt(energy / frameSamples));
  }
  const threshold = Math.max(100, Math.max(0, ...frameRms) * 0.05);
  const gapFrames = minGapMs / 10;
  const spans: Array<[number, number]> = [];
  frameRms.forEach((rms, frame) => {
    if (rms <= threshold) return;
    const open = spans.at(-1);
    if (open && frame - open[1] <= gapFrames) open[1] = frame;
    else spans.push([frame, frame]);
  });
  const padding = (paddingMs * sampleRate) / 1000;
  return spans.map(([first, last]) => {
    const from = Math.max(0, first * frameSamples - padding);
    const to = Math.min(piece.pcm.length, (last + 1) * frameSamples + padding);
    return { startSample: piece.startSample + from, pcm: piece.pcm.subarray(from, to) };
  });
}

/** The piece from its first to its last voiced region (with their padding); nothing when none is voiced. */
export function answerRegion(piece: AudioPiece): AudioPiece[] {
  const regions = voicedRegions(piece);
  if (regions.length <= 1) return regions;
  const first = regions[0]!;
  const last = regions.at(-1)!;
  const from = first.startSample - piece.startSample;
  const to = last.startSample - piece.startSample + last.pcm.length;
  return [{ startSample: first.startSample, pcm: piece.pcm.subarray(from, to) }];
}
