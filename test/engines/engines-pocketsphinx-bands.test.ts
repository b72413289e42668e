import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { loadBands } from '../../src/engines/pocketsphinx/band.js';
import type { PocketSphinxLibrary } from '../../src/engines/pocketsphinx/sphinx-library.js';
import { readGaussianFile } from '../../src/engines/pocketsphinx/gaussian-file.js';
import { defaults } from '../../src/engines/pocketsphinx/options.js';
import { telephoneCepstralMean } from '../../src/engines/pocketsphinx/telephone-cepstral-mean.js';

/** A library whose ps_mllr_read records what each file held, and answers `read` (null: it could not). */
function recordingLibrary(read: (text: string) => unknown) {
  const files: string[] = [];
  const lib = {
    readTransform: (path: string) => {
      const text = readFileSync(path, 'utf8');
      files.push(text);
      return read(text);
    },
  } as unknown as PocketSphinxLibrary;
  return { lib, files };
}

const model = defaults.acousticModelDir;
const savedTmpdir = process.env.TMPDIR;
let scratch: string;
// A temporary directory of the tests' own: the telephone model's files in the shared one are read by running
// decoders, and one test here takes a file away.
beforeEach(() => {
  scratch = mkdtempSync(join(tmpdir(), 'shoal-bands-test-'));
  process.env.TMPDIR = scratch;
});
afterEach(() => {
  if (savedTmpdir === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmpdir;
  rmSync(scratch, { recursive: true, force: true });
});

describe('the bands a decoder hears', () => {
  test("wide is the model's own Gaussians with its mean; telephone the moved ones with the telephone mean", () => {
    const { lib, files } = recordingLibrary((text) => ({ text }));
    const bands = loadBands(lib, model);
    expect(bands.wide.initialMean).toBeUndefined();
    expect(bands.telephone.initialMean).toBe(telephoneCepstralMean);
    expect(bands.wide.gaussians()).toEqual({ means: `${model}/means`, variances: `${model}/variances` });
    const numbers = files[0]!.trim().split(/\s+/).map(Number);
    // Both are loaded again with the identity: one class, three streams of 13, each the rows of the identity
    // matrix, a zero offset and unit variance scales.
    expect(files).toHaveLength(1);
    expect(numbers.slice(0, 3)).toEqual([1, 3, 13]);
    expect(numbers.slice(3, 16)).toEqual([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(numbers.slice(3 + 13 * 13, 3 + 13 * 15)).toEqual([...new Array(13).fill(0), ...new Array(13).fill(1)]);
    expect(numbers).toHaveLength(2 + 3 * (1 + 13 * 15));
    expect(bands.telephone.reload).toEqual({ text: files[0] });
    expect(bands.wide.reload).toBe(bands.telephone.reload);
    const telephone = bands.telephone.gaussians();
    const own = readGaussianFile(readFileSync(`${model}/means`), 'means');
    const moved = readGaussianFile(readFileSync(telephone.means), 'means');
    expect(moved).toMatchObject({ codebooks: own.codebooks, densities: own.densities, streamLengths: own.streamLengths });
    expect(moved.values).not.toEqual(own.values);
    expect(existsSync(telephone.variances)).toBe(true);
  });

  test("the telephone band's files are written again when they are gone (pocketsphinx would end the process)", () => {
    const bands = loadBands(recordingLibrary((text) => text).lib, model);
    const first = bands.telephone.gaussians();
    expect(first.variances.startsWith(scratch)).toBe(true);
    rmSync(first.variances);
    expect(bands.telephone.gaussians()).toEqual(first);
    expect(existsSync(first.variances)).toBe(true);
  });

  test('an identity transform pocketsphinx cannot read is an error that says so', () => {
    expect(() => loadBands(recordingLibrary(() => null).lib, model)).toThrow(/could not read the identity transform/);
  });

  test('an unwritable temporary directory is an error that says what to set', () => {
    process.env.TMPDIR = '/proc/shoal-nowhere';
    expect(() => loadBands(recordingLibrary((text) => text).lib, model)).toThrow(/set TMPDIR to a writable directory/);
  });
});
