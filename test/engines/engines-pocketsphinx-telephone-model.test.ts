import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { readGaussianFile, writeGaussianFile, type GaussianFile } from '../../src/engines/pocketsphinx/gaussian-file.js';
import { modelPhones } from '../../src/engines/pocketsphinx/model-phones.js';
import { moveToTelephoneBand, telephoneModelFiles } from '../../src/engines/pocketsphinx/telephone-model.js';
import type { StreamTransform } from '../../src/engines/pocketsphinx/telephone-transform.js';

const dirs: string[] = [];
const savedTmpdir = process.env.TMPDIR;
afterEach(() => {
  dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true }));
  if (savedTmpdir === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmpdir;
});
const scratch = () => {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-model-test-'));
  dirs.push(dir);
  return dir;
};

/** Two streams of 2 values, 2 densities per codebook; value i is `start + i`. */
function gaussians(codebooks: number, start: number): GaussianFile {
  const values = Float32Array.from({ length: codebooks * 2 * 4 }, (_, i) => start + i);
  return { codebooks, densities: 2, streamLengths: [2, 2], values };
}

/** A binary model definition (pocketsphinx's BMDF) with these base phones; only what modelPhones reads is real. */
function binaryMdef(phones: string[], silence: number): Buffer {
  const description = Buffer.from('BEGIN FILE FORMAT DESCRIPTION\nEND FILE FORMAT DESCRIPTION\n\0\0');
  const head = Buffer.alloc(12);
  head.write('BMDF');
  head.writeInt32LE(1, 4);
  head.writeInt32LE(description.length, 8);
  const counts = Buffer.alloc(40);
  counts.writeInt32LE(phones.length, 0);
  counts.writeInt32LE(silence, 36);
  return Buffer.concat([head, description, counts, Buffer.from(phones.join('\0') + '\0')]);
}

/** A model of three base phones (the silence phone second, a filler third), a codebook each. */
function tinyModel(): string {
  const dir = scratch();
  writeFileSync(join(dir, 'means'), writeGaussianFile(gaussians(3, 0)));
  writeFileSync(join(dir, 'variances'), writeGaussianFile(gaussians(3, 100)));
  writeFileSync(join(dir, 'mdef'), binaryMdef(['AA', 'SIL', '+NSN+'], 1));
  writeFileSync(join(dir, 'noisedict'), '<s> SIL\n</s> SIL\n[NOISE] +NSN+\n');
  return dir;
}

/** Stream 0 swaps its two values and adds 10 to the first; stream 1 doubles them. Variances: x2 and x3 in stream 0. */
const transform: StreamTransform[] = [
  { matrix: [[0, 1], [1, 0]], offset: [10, 0], scale: [2, 3] },
  { matrix: [[2, 0], [0, 2]], offset: [0, 0] },
];

describe('Gaussian parameter files', () => {
  test('what is written is read back', () => {
    const file = gaussians(3, 0.5);
    expect(readGaussianFile(writeGaussianFile(file), 'means')).toEqual(file);
  });

  test('reads the en-us model as pocketsphinx does', () => {
    const means = readGaussianFile(readFileSync('/usr/share/pocketsphinx/model/en-us/en-us/means'), 'means');
    expect(means).toMatchObject({ codebooks: 42, densities: 128, streamLengths: [13, 13, 13] });
    expect(means.values).toHaveLength(42 * 128 * 39);
  });

  test('a file that is not one, or is cut short, is an error naming it', () => {
    expect(() => readGaussianFile(Buffer.from('hello'), 'x/means')).toThrow(/x\/means is not a Sphinx-3 Gaussian parameter file/);
    const whole = writeGaussianFile(gaussians(3, 0));
    expect(() => readGaussianFile(whole.subarray(0, whole.length - 4), 'x/means')).toThrow(/x\/means holds/);
  });
});

describe("a model's base phones", () => {
  test('the en-us model: in its order, with its fillers (not silence)', () => {
    const phones = modelPhones('/usr/share/pocketsphinx/model/en-us/en-us')!;
    expect(phones.phones).toHaveLength(42);
    expect(phones.phones.slice(0, 3)).toEqual(['+NSN+', '+SPN+', 'AA']);
    expect([...phones.fillers].sort()).toEqual(['+NSN+', '+SPN+']);
  });

  test('none from a directory without a binary model definition', () => {
    const dir = scratch();
    expect(modelPhones(dir)).toBeUndefined();
    writeFileSync(join(dir, 'mdef'), '0.3\n3 n_base\n');
    writeFileSync(join(dir, 'noisedict'), '');
    expect(modelPhones(dir)).toBeUndefined();
  });
});

/** The model in `dir` moved to the telephone band: its means' and variances' values. */
function moved(dir: string, streams: StreamTransform[] = transform) {
  const files = moveToTelephoneBand(dir, { means: readFileSync(join(dir, 'means')), variances: readFileSync(join(dir, 'variances')) }, streams);
  return { means: readGaussianFile(files.means, 'means').values, variances: readGaussianFile(files.variances, 'variances').values };
}

describe("the telephone band's model", () => {
  test("moves each codebook's means and scales its variances, silence's too; the fillers' keep the model's", () => {
    const { means, variances } = moved(tinyModel());
    // Codebook 0 (AA): stream 0's densities [0, 1], [2, 3]; stream 1's [4, 5], [6, 7].
    expect([...means.slice(0, 8)]).toEqual([11, 0, 13, 2, 8, 10, 12, 14]);
    expect([...variances.slice(0, 8)]).toEqual([200, 303, 204, 309, 104, 105, 106, 107]);
    // Codebook 1 (SIL) moved alike; codebook 2 (+NSN+) as it was.
    expect([...means.slice(8, 12)]).toEqual([19, 8, 21, 10]);
    expect([...variances.slice(8, 12)]).toEqual([216, 327, 220, 333]);
    expect([...means.slice(16)]).toEqual(Array.from({ length: 8 }, (_, i) => 16 + i));
    expect([...variances.slice(16)]).toEqual(Array.from({ length: 8 }, (_, i) => 116 + i));
  });

  test('moves every codebook of a model it cannot tell the phones of', () => {
    const model = tinyModel();
    rmSync(join(model, 'mdef'));
    expect([...moved(model).means.slice(16, 20)]).toEqual([27, 16, 29, 18]);
  });

  test('a transform of other streams than the model has is an error', () => {
    expect(() => moved(tinyModel(), [transform[0]!])).toThrow(/streams of 2 values; the model in .* has 2\/2/);
  });

  test('its files are written once per model and transform, in the temporary directory, and again when gone', () => {
    process.env.TMPDIR = scratch();
    const model = tinyModel();
    const files = telephoneModelFiles(model, transform)();
    expect(files.means.startsWith(process.env.TMPDIR)).toBe(true);
    expect(readGaussianFile(readFileSync(files.means), 'means').values).toEqual(moved(model).means);
    expect(readGaussianFile(readFileSync(files.variances), 'variances').values).toEqual(moved(model).variances);
    expect(telephoneModelFiles(model, transform)()).toEqual(files);
    const other = telephoneModelFiles(model, [transform[1]!, transform[1]!])();
    expect(other.means).not.toBe(files.means);
    rmSync(files.means);
    expect(telephoneModelFiles(model, transform)()).toEqual(files);
    expect(readGaussianFile(readFileSync(files.means), 'means').values).toEqual(moved(model).means);
  });

  test('an unwritable temporary directory is an error that says what to set', () => {
    const model = tinyModel();
    // A file where the directory should be (Node's recursive mkdir never returns under /proc).
    process.env.TMPDIR = join(model, 'means');
    expect(() => telephoneModelFiles(model, transform)()).toThrow(/set TMPDIR to a writable directory/);
  });
});
