import { existsSync } from 'node:fs';
import type Koffi from 'koffi';
import { MissingPackageError, requireOptional } from '../../optional/index.js';
import { EngineUnavailableError } from '../types.js';
import { installHint, type PocketSphinxOptions } from './options.js';

/** Throws EngineUnavailableError naming what is missing and what to install. */
export function checkPocketSphinxInstalled(options: PocketSphinxOptions): void {
  let koffi: typeof Koffi;
  try {
    koffi = requireOptional<typeof Koffi>('koffi');
  } catch (error) {
    throw error instanceof MissingPackageError ? new EngineUnavailableError('pocketsphinx', error.message) : error;
  }
  for (const path of [options.libraryPath, options.sphinxbaseLibraryPath]) {
    try {
      koffi.load(path);
    } catch (error) {
      throw new EngineUnavailableError(
        'pocketsphinx',
        `pocketsphinx library ${path} cannot be loaded (${(error as Error).message.split('\n')[0]}); install it with: ${installHint}`,
      );
    }
  }
  const modelFiles = [options.acousticModelDir, options.languageModelPath, options.dictionaryPath];
  const missing = modelFiles.filter((path) => !existsSync(path));
  if (missing.length > 0) {
    throw new EngineUnavailableError(
      'pocketsphinx',
      `pocketsphinx model missing (${missing.join(', ')}); install it with: ${installHint}`,
    );
  }
}
