import type { FliteProgram } from './flite-program.js';

const separator = '! ';
const cacheLimit = 20_000;

/**
 * Each word's phones as flite's lexicon and letter-to-sound rules give them, looked up by a cheap
 * flite run over the words alone (separated so that flite puts a pause between them) and cached.
 */
export class PronunciationLookup {
  private readonly cache = new Map<string, string[]>();

  constructor(private readonly program: FliteProgram) {}

  /** Phones per word, or undefined when flite's grouping did not match the words (callers then estimate). */
  async lookup(words: string[]): Promise<string[][] | undefined> {
    const keys = words.map((w) => w.toLowerCase());
    const missing = [...new Set(keys.filter((k) => !this.cache.has(k)))];
    if (missing.length > 0) {
      const run = await this.program.run([
        '-voice', 'kal',
        '--setf', 'duration_stretch=0.1',
        '-ps',
        '-t', missing.join(separator),
        '-o', 'none',
      ]);
      const groups = run.stdout
        .split(/\bpau\b/)
        .map((g) => g.trim().split(/\s+/).filter(Boolean))
        .filter((g) => g.length > 0);
      if (groups.length !== missing.length) return undefined;
      if (this.cache.size + missing.length > cacheLimit) this.cache.clear();
      missing.forEach((key, i) => this.cache.set(key, groups[i]!));
    }
    return keys.map((k) => this.cache.get(k)!);
  }
}
