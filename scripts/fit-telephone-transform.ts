/**
 * Fits the telephone band's transform (src/engines/pocketsphinx/telephone-transform.ts) on stereo pairs, and
 * prints its streams as JSON in that file's shape.
 * Needs Debian's sphinxbase-utils (sphinx_fe) and pocketsphinx-testdata.
 * Run: npx tsx scripts/fit-telephone-transform.ts [work directory, default a new temporary one]
 *
 * Stereo pairs: every recording is heard twice, as recorded (the band the model was trained on) and through
 * the telephone channel bench/listening.ts uses (8 kHz mu-law and back to 16 kHz). Both sides become the
 * model's features frame by frame (sphinx_fe with the model's feat.params; cepstra less their utterance mean,
 * with deltas and double deltas as pocketsphinx's 1s_c_d_dd computes them). Frame t is the same sound on both
 * sides, so no transcript and no alignment is needed, and any recording will do: per feature stream, the
 * affine map that takes wide-band features to their telephone version with the least squared error. Applied to
 * the model's Gaussians' means, it moves the model to the channel. Each stream's `scale` multiplies the
 * variances: a Gaussian of variance v heard through the map has about matrix² v plus the fit's residual.
 *
 * The recordings: the wide-band clips of the tuning fold of test/fixtures/human (folds.json; its telephone
 * recordings are already narrow, and map to themselves), the five sentences of its LibriVox reader in
 * pocketsphinx-testdata, and the sentences of fit-telephone-transform-sentences.txt synthesised with each 16 kHz
 * flite voice (the channel, not the speaker, is what is fitted). The quietest 5 % of frames (by the wide-band
 * energy cepstrum: padding of digital silence) are left out. What it changes: docs/measurements.md.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FliteEngine } from '../src/engines/flite/engine.js';
import { FliteProgram } from '../src/engines/flite/flite-program.js';
import { fliteVoices } from '../src/engines/flite/voices.js';
import { defaults } from '../src/engines/pocketsphinx/options.js';
import { forEachDensity, readGaussianFile } from '../src/engines/pocketsphinx/gaussian-file.js';
import type { StreamTransform } from '../src/engines/pocketsphinx/telephone-transform.js';
import { readPcmWav, throughTelephoneChannel } from '../test/support/engines-fixtures.js';

const librivox = '/usr/share/pocketsphinx/test/data/librivox/';
const librivoxClips = ['0870', '0880', '0890', '0920', '0930'].map((n) => `sense_and_sensibility_01_austen_64kb-${n}.wav`);
/** Tuning clips recorded through a telephone: band-watch.ts hears them in the telephone band. */
const narrowClips = new Set(['dev_06.wav', 'dev_08.wav', 'dev_10.wav', 'dev_11.wav']);
const sentences = readFileSync(join(import.meta.dirname, 'fit-telephone-transform-sentences.txt'), 'utf8').trim().split('\n');
const work = process.argv[2] ?? mkdtempSync(join(tmpdir(), 'shoal-fit-'));
/** Cepstra per frame, and the length of each feature stream (cepstra, deltas, double deltas). */
const cepstra = 13;

interface Pair {
  wide: Float64Array;
  telephone: Float64Array;
}

const round = (v: number) => Math.round(v * 1e6) / 1e6;

async function recordings(): Promise<Array<{ id: string; pcm: Int16Array }>> {
  const folds = JSON.parse(readFileSync('test/fixtures/human/folds.json', 'utf8')) as { tuning: string[] };
  const wav = (id: string, path: string) => {
    const { samples, sampleRate } = readPcmWav(path);
    if (sampleRate !== 16000) throw new Error(`${path}: ${sampleRate} Hz, the model's features need 16 kHz`);
    return { id, pcm: samples };
  };
  const human = folds.tuning.filter((file) => !narrowClips.has(file)).map((file) => wav(file.replace('.wav', ''), `test/fixtures/human/${file}`));
  const reader = librivoxClips.map((file) => wav(file.replace('.wav', ''), join(librivox, file)));
  const program = new FliteProgram();
  const flite = new FliteEngine(program);
  const voices = Object.values(fliteVoices).filter((v) => v.sampleRate === 16000);
  const synthetic: Array<{ id: string; pcm: Int16Array }> = [];
  try {
    for (const [i, text] of sentences.entries()) {
      for (const { voice } of voices) synthetic.push({ id: `flite-${voice}-${i}`, pcm: (await flite.synthesize(text, { voice })).samples });
    }
  } finally {
    await program.shutdown();
  }
  return [...human, ...reader, ...synthetic];
}

/** The utterance's features as pocketsphinx's 1s_c_d_dd computes them, from sphinx_fe's cepstra. */
function features(mfcFile: string): Float64Array[] {
  const bytes = readFileSync(mfcFile);
  const values = bytes.readInt32LE(0);
  const frames = Math.floor(values / cepstra);
  const c = Array.from({ length: frames }, (_, t) => Float64Array.from({ length: cepstra }, (_, d) => bytes.readFloatLE(4 + 4 * (t * cepstra + d))));
  const mean = new Float64Array(cepstra);
  for (const frame of c) frame.forEach((v, d) => (mean[d]! += v / frames));
  for (const frame of c) frame.forEach((v, d) => (frame[d] = v - mean[d]!));
  const at = (t: number) => c[Math.min(frames - 1, Math.max(0, t))]!;
  return c.map((frame, t) => {
    const out = new Float64Array(3 * cepstra);
    for (let d = 0; d < cepstra; d++) {
      out[d] = frame[d]!;
      out[cepstra + d] = at(t + 2)[d]! - at(t - 2)[d]!;
      out[2 * cepstra + d] = at(t + 3)[d]! - at(t - 1)[d]! - (at(t + 1)[d]! - at(t - 3)[d]!);
    }
    return out;
  });
}

/** Solves `a x = b` (n x n, in place) by Gaussian elimination with partial pivoting. */
function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  for (let col = 0; col < n; col++) {
    const pivot = a.slice(col).reduce((best, row, i) => (Math.abs(row[col]!) > Math.abs(a[best]![col]!) ? col + i : best), col);
    [a[col], a[pivot]] = [a[pivot]!, a[col]!];
    [b[col], b[pivot]] = [b[pivot]!, b[col]!];
    for (let row = col + 1; row < n; row++) {
      const factor = a[row]![col]! / a[col]![col]!;
      for (let k = col; k < n; k++) a[row]![k]! -= factor * a[col]![k]!;
      b[row]! -= factor * b[col]!;
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let row = n - 1; row >= 0; row--) {
    let sum = b[row]!;
    for (let k = row + 1; k < n; k++) sum -= a[row]![k]! * x[k]!;
    x[row] = sum / a[row]![row]!;
  }
  return x;
}

/** Per stream, the least-squares affine map telephone ≈ matrix * wide + offset. */
function fit(pairs: Pair[]): StreamTransform[] {
  return [0, 1, 2].map((stream) => {
    const from = stream * cepstra;
    const n = cepstra + 1;
    const gram = Array.from({ length: n }, () => new Array<number>(n).fill(0));
    const cross = Array.from({ length: n }, () => new Array<number>(cepstra).fill(0));
    for (const { wide, telephone } of pairs) {
      const x = [...wide.subarray(from, from + cepstra), 1];
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < n; j++) gram[i]![j]! += x[i]! * x[j]!;
        for (let d = 0; d < cepstra; d++) cross[i]![d]! += x[i]! * telephone[from + d]!;
      }
    }
    const rows = Array.from({ length: cepstra }, (_, d) =>
      solve(
        gram.map((row) => [...row]),
        cross.map((row) => row[d]!),
      ),
    );
    return { matrix: rows.map((row) => row.slice(0, cepstra).map(round)), offset: rows.map((row) => round(row[cepstra]!)) };
  });
}

/** The model's Gaussians' variances, per density, 39 each (the three streams' joined). */
function modelVariances(): Float64Array[] {
  const path = join(defaults.acousticModelDir, 'variances');
  const file = readGaussianFile(readFileSync(path), path);
  const out = Array.from({ length: file.codebooks * file.densities }, () => new Float64Array(3 * cepstra));
  for (let codebook = 0; codebook < file.codebooks; codebook++) {
    for (let stream = 0; stream < file.streamLengths.length; stream++) {
      let density = 0;
      forEachDensity(file, codebook, stream, (at) => {
        for (let d = 0; d < cepstra; d++) out[codebook * file.densities + density]![stream * cepstra + d] = Math.max(1e-4, file.values[at + d]!);
        density++;
      });
    }
  }
  return out;
}

/**
 * `streams` with the scales the variances are multiplied by: a Gaussian of variance v heard through the map has
 * about matrix² v + the fit's residual; per dimension, the geometric mean of that over v, across the model's
 * Gaussians.
 */
function withVarianceScales(streams: StreamTransform[], pairs: Pair[]): Array<StreamTransform & { scale: number[] }> {
  const variances = modelVariances();
  return streams.map(({ matrix, offset }, stream) => {
    const from = stream * cepstra;
    const residual = new Array<number>(cepstra).fill(0);
    for (const { wide, telephone } of pairs) {
      for (let d = 0; d < cepstra; d++) {
        const predicted = offset[d]! + matrix[d]!.reduce((sum, a, k) => sum + a * wide[from + k]!, 0);
        residual[d]! += (telephone[from + d]! - predicted) ** 2 / pairs.length;
      }
    }
    const scale = residual.map((r, d) => {
      const logs = variances.map((v) => Math.log((matrix[d]!.reduce((sum, a, k) => sum + a * a * v[from + k]!, 0) + r) / v[from + d]!));
      return round(Math.exp(logs.reduce((a, b) => a + b, 0) / logs.length));
    });
    return { matrix, offset, scale };
  });
}

mkdirSync(work, { recursive: true });
const clips = await recordings();
for (const { id, pcm } of clips) {
  const telephone = await throughTelephoneChannel(pcm);
  writeFileSync(join(work, `${id}.wide.raw`), Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength));
  writeFileSync(join(work, `${id}.telephone.raw`), Buffer.from(telephone.buffer, telephone.byteOffset, telephone.byteLength));
}
writeFileSync(join(work, 'fileids'), clips.flatMap(({ id }) => [`${id}.wide`, `${id}.telephone`]).join('\n') + '\n');
process.stderr.write(`${clips.length} recordings, as recorded and through the telephone channel, in ${work}; computing features (sphinx_fe)\n`);
try {
  // -dither: the clips' exact digital silence would give log(0) energies; -seed: the same dither every run.
  execFileSync('sphinx_fe', ['-argfile', join(defaults.acousticModelDir, 'feat.params'), '-samprate', '16000', '-c', 'fileids', '-di', '.', '-do', '.', '-ei', 'raw', '-eo', 'mfc', '-raw', 'yes', '-dither', 'yes', '-seed', '1'], {
    cwd: work,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
} catch (error) {
  throw new Error(`sphinx_fe failed (apt-get install sphinxbase-utils pocketsphinx-testdata): ${(error as { stderr?: Buffer }).stderr?.toString().slice(-2000) ?? error}`);
}
const pairs = clips.flatMap(({ id }): Pair[] => {
  const wide = features(join(work, `${id}.wide.mfc`));
  const telephone = features(join(work, `${id}.telephone.mfc`));
  return wide.slice(0, telephone.length).map((w, t) => ({ wide: w, telephone: telephone[t]! }));
});
const energies = pairs.map((p) => p.wide[0]!).sort((a, b) => a - b);
const quietest = energies[Math.floor(0.05 * energies.length)]!;
const heard = pairs.filter((p) => p.wide[0]! > quietest);
process.stderr.write(`${heard.length} frames of ${pairs.length}; fitting\n`);
const streams = fit(heard);
console.log(JSON.stringify(withVarianceScales(streams, heard)));
