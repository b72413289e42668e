import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Band } from './sphinx-decoder.js';
import type { PocketSphinxLibrary } from './sphinx-library.js';
import { telephoneCepstralMean } from './telephone-cepstral-mean.js';
import { telephoneModelFiles } from './telephone-model.js';
import { identityTransform, telephoneTransform, transformFileText } from './telephone-transform.js';

/**
 * The bands a decoder hears: wide (the model in `modelDir` as trained) and telephone (8 kHz resampled to
 * 16 kHz: the model moved to the band, see telephone-model.ts).
 */
export function loadBands(lib: PocketSphinxLibrary, modelDir: string): { wide: Band; telephone: Band } {
  const reload = readIdentityTransform(lib);
  const wide = { means: join(modelDir, 'means'), variances: join(modelDir, 'variances') };
  const telephone = telephoneModelFiles(modelDir, telephoneTransform);
  return {
    wide: { gaussians: () => wide, reload },
    telephone: { gaussians: telephone, reload, initialMean: telephoneCepstralMean },
  };
}

/** ps_mllr_read reads only files (what it read stays in memory): a directory of our own for it, removed after. */
function readIdentityTransform(lib: PocketSphinxLibrary): unknown {
  let dir: string;
  try {
    dir = mkdtempSync(join(tmpdir(), 'shoal-bands-'));
  } catch (error) {
    throw new Error(`pocketsphinx reads its bands' models and transform from files, and ${tmpdir()} is not writable (${(error as Error).message}): set TMPDIR to a writable directory`);
  }
  try {
    const path = join(dir, 'identity');
    writeFileSync(path, transformFileText(identityTransform));
    const transform = lib.readTransform(path);
    if (!transform) throw new Error('pocketsphinx could not read the identity transform it loads a band with (ps_mllr_read failed)');
    return transform;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
