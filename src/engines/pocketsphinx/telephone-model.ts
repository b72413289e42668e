import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { forEachDensity, readGaussianFile, writeGaussianFile, type GaussianFile } from './gaussian-file.js';
import { modelPhones } from './model-phones.js';
import type { GaussianFiles } from './sphinx-library.js';
import type { StreamTransform } from './telephone-transform.js';

/**
 * The files of the telephone band's Gaussians for the model in `modelDir`: a function that gives them, writing
 * them first when they are not there. pocketsphinx reads only files, and reads them again at each switch of band;
 * it ends the process when one is missing, and a cleaner of the temporary directory may have taken them. They
 * live in the temporary directory under a digest of what they are made of, so that the threads and runs of one
 * model share them and the files of another model or transform are never taken for them. Nothing is read
 * before the first call.
 */
export function telephoneModelFiles(modelDir: string, transform: readonly StreamTransform[]): () => GaussianFiles {
  let files: GaussianFiles | undefined;
  return () => {
    if (files && existsSync(files.means) && existsSync(files.variances)) return files;
    const model = readModel(modelDir);
    files ??= locationOf(modelDir, model, transform);
    if (!existsSync(files.means) || !existsSync(files.variances)) write(files, moveToTelephoneBand(modelDir, model, transform));
    return files;
  };
}

function readModel(modelDir: string): { means: Buffer; variances: Buffer } {
  return { means: readFileSync(join(modelDir, 'means')), variances: readFileSync(join(modelDir, 'variances')) };
}

function locationOf(modelDir: string, { means, variances }: { means: Buffer; variances: Buffer }, transform: readonly StreamTransform[]): GaussianFiles {
  const digest = createHash('sha256').update(JSON.stringify(transform)).update(means).update(variances);
  for (const file of ['mdef', 'noisedict']) digest.update(existsSync(join(modelDir, file)) ? readFileSync(join(modelDir, file)) : '');
  const dir = join(tmpdir(), `shoal-telephone-model-${digest.digest('hex').slice(0, 16)}`);
  return { means: join(dir, 'means'), variances: join(dir, 'variances') };
}

function write(files: GaussianFiles, moved: { means: Buffer; variances: Buffer }): void {
  try {
    mkdirSync(dirname(files.means), { recursive: true });
    // Each written whole under a name of its own first: another thread may be reading the file of this name.
    for (const name of ['means', 'variances'] as const) {
      const partial = `${files[name]}.${process.pid}.${randomUUID()}`;
      writeFileSync(partial, moved[name]);
      renameSync(partial, files[name]);
    }
  } catch (error) {
    throw new Error(`pocketsphinx reads the telephone band's model from files, and ${tmpdir()} is not writable (${(error as Error).message}): set TMPDIR to a writable directory`);
  }
}

/**
 * The means and variances of the model in `modelDir` (its files' bytes: `model`) moved to the telephone band
 * by `transform`: each Gaussian's mean mapped by its stream's affine map, its variances scaled.
 *
 * The codebooks of the fillers (noise, speech-like sounds) keep the model's own: the map is fitted on speech
 * through the channel, and moved with it they took words of real telephone recordings for noise ("three one
 * five eight" decoded whole was heard "truth lies lies and"; docs/measurements.md). That needs a
 * codebook per base phone (the en-us model's phonetically tied mixtures); a model with other codebooks has
 * every one moved.
 */
export function moveToTelephoneBand(modelDir: string, model: { means: Buffer; variances: Buffer }, transform: readonly StreamTransform[]): { means: Buffer; variances: Buffer } {
  const means = readGaussianFile(model.means, join(modelDir, 'means'));
  const variances = readGaussianFile(model.variances, join(modelDir, 'variances'));
  if (means.streamLengths.length !== transform.length || means.streamLengths.some((length, i) => transform[i]!.offset.length !== length)) {
    throw new Error(`the telephone band's transform has streams of ${transform.map((s) => s.offset.length).join('/')} values; the model in ${modelDir} has ${means.streamLengths.join('/')}`);
  }
  const phones = modelPhones(modelDir);
  const kept = (codebook: number) => phones?.phones.length === means.codebooks && phones.fillers.has(phones.phones[codebook]!);
  for (let codebook = 0; codebook < means.codebooks; codebook++) {
    if (kept(codebook)) continue;
    transform.forEach((stream, s) => {
      forEachDensity(means, codebook, s, (at) => mapMean(means, at, stream));
      forEachDensity(variances, codebook, s, (at) => stream.scale?.forEach((scale, i) => (variances.values[at + i] = variances.values[at + i]! * scale)));
    });
  }
  return { means: writeGaussianFile(means), variances: writeGaussianFile(variances) };
}

function mapMean(file: GaussianFile, at: number, { matrix, offset }: StreamTransform): void {
  const mean = file.values.slice(at, at + offset.length);
  offset.forEach((shift, row) => {
    let value = shift;
    matrix[row]!.forEach((weight, column) => (value += weight * mean[column]!));
    file.values[at + row] = value;
  });
}
