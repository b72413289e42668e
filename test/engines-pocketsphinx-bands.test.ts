import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, test } from 'vitest';
import { loadBands } from '../src/engines/pocketsphinx/band.js';
import type { PocketSphinxLibrary } from '../src/engines/pocketsphinx/decoder-binding.js';
import { telephoneCepstralMean } from '../src/engines/pocketsphinx/telephone-cepstral-mean.js';

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

const savedTmpdir = process.env.TMPDIR;
afterEach(() => {
  if (savedTmpdir === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmpdir;
});

describe('the bands a decoder hears', () => {
  test('wide is the identity with the model mean; telephone its transform with the telephone mean', () => {
    const { lib, files } = recordingLibrary((text) => ({ text }));
    const bands = loadBands(lib);
    expect(bands.wide.initialMean).toBeUndefined();
    expect(bands.telephone.initialMean).toBe(telephoneCepstralMean);
    const numbers = (text: string) => text.trim().split(/\s+/).map(Number);
    const wide = numbers(files[0]!);
    // One class, three streams of 13: the rows of the identity, a zero offset, unit variance scales.
    expect(wide.slice(0, 3)).toEqual([1, 3, 13]);
    expect(wide.slice(3, 16)).toEqual([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(wide.slice(3 + 13 * 13, 3 + 13 * 15)).toEqual([...new Array(13).fill(0), ...new Array(13).fill(1)]);
    expect(wide).toHaveLength(2 + 3 * (1 + 13 * 15));
    expect(numbers(files[1]!)).toHaveLength(wide.length);
    expect(files[1]).not.toBe(files[0]);
    expect(bands.telephone.transform).toEqual({ text: files[1] });
  });

  test('a transform pocketsphinx cannot read is an error that names the band', () => {
    expect(() => loadBands(recordingLibrary(() => null).lib)).toThrow(/wide band's transform/);
  });

  test('an unwritable temporary directory is an error that says what to set', () => {
    process.env.TMPDIR = '/proc/shoal-nowhere';
    expect(() => loadBands(recordingLibrary((text) => text).lib)).toThrow(/set TMPDIR to a writable directory/);
  });
});
