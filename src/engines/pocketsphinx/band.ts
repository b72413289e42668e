import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Band, PocketSphinxLibrary } from './decoder-binding.js';
import { telephoneCepstralMean } from './telephone-cepstral-mean.js';
import { identityTransform, telephoneTransform, transformFileText, type StreamTransform } from './telephone-transform.js';

/** The bands a decoder hears: wide (the model as trained) and telephone (8 kHz resampled to 16 kHz). */
export function loadBands(lib: PocketSphinxLibrary): { wide: Band; telephone: Band } {
  const dir = transformDirectory();
  try {
    const read = (name: string, streams: readonly StreamTransform[]) => {
      const path = join(dir, name);
      writeFileSync(path, transformFileText(streams));
      const transform = lib.readTransform(path);
      if (!transform) throw new Error(`pocketsphinx could not read the ${name} band's transform (ps_mllr_read failed)`);
      return transform;
    };
    return {
      wide: { transform: read('wide', identityTransform) },
      telephone: { transform: read('telephone', telephoneTransform), initialMean: telephoneCepstralMean },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** ps_mllr_read reads only files (what it read stays in memory): a directory of our own for them, removed after. */
function transformDirectory(): string {
  try {
    return mkdtempSync(join(tmpdir(), 'shoal-bands-'));
  } catch (error) {
    throw new Error(`pocketsphinx reads the telephone band's transform from a file, and ${tmpdir()} is not writable (${(error as Error).message}): set TMPDIR to a writable directory`);
  }
}
