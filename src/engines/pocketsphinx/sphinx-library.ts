import type Koffi from 'koffi';
import { requireOptional } from '../../optional/index.js';

/** Checked by checkPocketSphinxInstalled before the decoder worker starts. */
const koffi = requireOptional<typeof Koffi>('koffi');

/** The C functions of pocketsphinx 5prealpha (Debian's libpocketsphinx3) that the decoder uses. */
export interface PocketSphinxLibrary {
  parseArguments(argv: string[]): unknown;
  init(config: unknown): unknown;
  free(decoder: unknown): void;
  startStream(decoder: unknown): number;
  startUtterance(decoder: unknown): number;
  processRaw(decoder: unknown, pcm: Int16Array, fullUtterance: boolean): number;
  endUtterance(decoder: unknown): number;
  hypothesis(decoder: unknown): string | null;
  segments(decoder: unknown): Segment[];
  /**
   * Adds (or replaces) a JSGF grammar search named `name`; false when pocketsphinx rejects the grammar.
   * `wordInsertionPenalty`: the search's own `-wip` (the decoder's other searches keep theirs).
   */
  setGrammar(decoder: unknown, name: string, jsgf: string, wordInsertionPenalty?: number): boolean;
  /** Makes the named search (`default` is the language model) the active one. */
  useSearch(decoder: unknown, name: string): boolean;
  /** Whether the pronunciation dictionary has `word`. */
  knowsWord(decoder: unknown, word: string): boolean;
  /** Reads an n-gram model with the decoder's log tables (so it can be shared by decoders built alike). */
  readLanguageModel(config: unknown, decoder: unknown, path: string): unknown;
  /** Makes `lm` the decoder's active search. */
  useLanguageModel(decoder: unknown, lm: unknown): boolean;
  /** Drops this holder's reference to a language model (decoders using it keep their own). */
  freeLanguageModel(lm: unknown): void;
  /** The decoder's feature computation (`feat_t *`), which holds its cepstral mean state. */
  featureComputation(decoder: unknown): unknown;
  /** Gives freed heap memory back to the system (glibc's malloc_trim; a no-op where there is none). */
  trimHeap(): void;
  /** Reads an MLLR transform file (`ps_mllr_t *`); null when it cannot. */
  readTransform(path: string): unknown;
  /**
   * Loads the decoder's Gaussians from `files` again: ps_update_mllr reads them from the files the decoder's
   * configuration names, and transforms them by `transform` (the identity here). False when it fails.
   */
  loadGaussians(decoder: unknown, files: GaussianFiles, transform: unknown): boolean;
}

/** An acoustic model's Gaussian parameter files. */
export interface GaussianFiles {
  means: string;
  variances: string;
}

const modelMeans = '_mean';
const modelVariances = '_var';

/** Loads the libraries; throws the loader's error when they are missing. */
export function loadPocketSphinx(libraryPath: string, sphinxbaseLibraryPath: string): PocketSphinxLibrary {
  const ps = koffi.load(libraryPath);
  const sphinxbase = koffi.load(sphinxbaseLibraryPath);
  const errSetLogfp = sphinxbase.func('void err_set_logfp(void *fp)');
  const cmdLnParse = sphinxbase.func('void *cmd_ln_parse_r(void *inout, void *defn, int argc, const char **argv, int strict)');
  const psArgs = ps.func('void *ps_args()');
  const psInit = ps.func('void *ps_init(void *config)');
  const psFree = ps.func('int ps_free(void *ps)');
  const psStartStream = ps.func('int ps_start_stream(void *ps)');
  const psStartUtt = ps.func('int ps_start_utt(void *ps)');
  const psProcessRaw = ps.func('int ps_process_raw(void *ps, const int16_t *data, size_t n, int no_search, int full_utt)');
  const psEndUtt = ps.func('int ps_end_utt(void *ps)');
  const psGetHyp = ps.func('const char *ps_get_hyp(void *ps, _Out_ int *score)');
  const psSegIter = ps.func('void *ps_seg_iter(void *ps)');
  const psSegNext = ps.func('void *ps_seg_next(void *seg)');
  const psSegWord = ps.func('const char *ps_seg_word(void *seg)');
  const psSegFrames = ps.func('void ps_seg_frames(void *seg, _Out_ int *sf, _Out_ int *ef)');
  const psGetLogmath = ps.func('void *ps_get_logmath(void *ps)');
  const psSetLm = ps.func('int ps_set_lm(void *ps, const char *name, void *lm)');
  const psSetSearch = ps.func('int ps_set_search(void *ps, const char *name)');
  const psGetFeat = ps.func('void *ps_get_feat(void *ps)');
  const psSegProb = ps.func('int32_t ps_seg_prob(void *seg, _Out_ int32_t *ascr, _Out_ int32_t *lscr, _Out_ int32_t *lback)');
  const psSetJsgfString = ps.func('int ps_set_jsgf_string(void *ps, const char *name, const char *jsgf)');
  const psGetConfig = ps.func('void *ps_get_config(void *ps)');
  const cmdLnFloat = sphinxbase.func('double cmd_ln_float_r(void *config, const char *name)');
  const cmdLnSetFloat = sphinxbase.func('void cmd_ln_set_float_r(void *config, const char *name, double value)');
  const psLookupWord = ps.func('void *ps_lookup_word(void *ps, const char *word)');
  const psMllrRead = ps.func('void *ps_mllr_read(const char *file)');
  const psUpdateMllr = ps.func('void *ps_update_mllr(void *ps, void *mllr)');
  const psMllrRetain = ps.func('void *ps_mllr_retain(void *mllr)');
  const ckdFree = sphinxbase.func('void ckd_free(void *ptr)');
  const cmdLnString = sphinxbase.func('const char *cmd_ln_str_r(void *config, const char *name)');
  const cmdLnSetString = sphinxbase.func('void cmd_ln_set_str_r(void *config, const char *name, const char *value)');
  const ngramModelRead = sphinxbase.func('void *ngram_model_read(void *config, const char *path, int type, void *lmath)');
  const ngramModelFree = sphinxbase.func('int ngram_model_free(void *lm)');
  const ngramAuto = 0;
  errSetLogfp(null);
  const mallocTrim = glibcMallocTrim();

  return {
    parseArguments: (argv) => cmdLnParse(null, psArgs(), argv.length, argv, 1),
    init: (config) => psInit(config),
    free: (decoder) => psFree(decoder),
    startStream: (decoder) => psStartStream(decoder),
    startUtterance: (decoder) => psStartUtt(decoder),
    processRaw: (decoder, pcm, fullUtterance) => psProcessRaw(decoder, pcm, pcm.length, 0, fullUtterance ? 1 : 0),
    endUtterance: (decoder) => psEndUtt(decoder),
    hypothesis: (decoder) => psGetHyp(decoder, [0]) as string | null,
    segments: (decoder) => {
      const list: Segment[] = [];
      // ps_seg_next frees the iterator when it returns null.
      for (let seg = psSegIter(decoder); seg; seg = psSegNext(seg)) {
        const start = [0];
        const end = [0];
        const acoustic = [0];
        psSegFrames(seg, start, end);
        psSegProb(seg, acoustic, [0], [0]);
        list.push({ word: psSegWord(seg) as string, startFrame: start[0]!, endFrame: end[0]!, acousticScore: acoustic[0]! });
      }
      return list;
    },
    setGrammar: (decoder, name, jsgf, wordInsertionPenalty) => {
      if (wordInsertionPenalty === undefined) return psSetJsgfString(decoder, name, jsgf) === 0;
      // A grammar search reads -wip from the decoder's configuration when it is made, and only then.
      const config = psGetConfig(decoder);
      const own = cmdLnFloat(config, '-wip') as number;
      cmdLnSetFloat(config, '-wip', wordInsertionPenalty);
      try {
        return psSetJsgfString(decoder, name, jsgf) === 0;
      } finally {
        cmdLnSetFloat(config, '-wip', own);
      }
    },
    useSearch: (decoder, name) => psSetSearch(decoder, name) === 0,
    knowsWord: (decoder, word) => {
      const phones = psLookupWord(decoder, word);
      if (!phones) return false;
      ckdFree(phones);
      return true;
    },
    readLanguageModel: (config, decoder, path) => ngramModelRead(config, path, ngramAuto, psGetLogmath(decoder)),
    useLanguageModel: (decoder, lm) => psSetLm(decoder, 'default', lm) === 0 && psSetSearch(decoder, 'default') === 0,
    freeLanguageModel: (lm) => ngramModelFree(lm),
    featureComputation: (decoder) => psGetFeat(decoder),
    trimHeap: () => mallocTrim?.(0),
    readTransform: (path) => psMllrRead(path),
    loadGaussians: (decoder, files, transform) => {
      // pocketsphinx 5prealpha keeps the model's file paths, expanded from -hmm, under these internal names.
      const config = psGetConfig(decoder);
      if (!cmdLnString(config, modelMeans) || !cmdLnString(config, modelVariances)) return false;
      cmdLnSetString(config, modelMeans, files.means);
      cmdLnSetString(config, modelVariances, files.variances);
      // The decoder takes a reference and frees the transform it held before: one each, or a transform used
      // again after a switch would have been freed.
      return psUpdateMllr(decoder, psMllrRetain(transform)) !== null;
    },
  };
}

/** A freed decoder's many small blocks stay in the C heap until trimmed; glibc only (musl has no malloc_trim). */
function glibcMallocTrim(): ((pad: number) => number) | undefined {
  try {
    return koffi.load('libc.so.6').func('int malloc_trim(size_t pad)') as (pad: number) => number;
  } catch {
    return undefined;
  }
}

/** One word (or silence, filler) of a hypothesis: its frames and its acoustic log-likelihood. */
export interface Segment {
  word: string;
  startFrame: number;
  endFrame: number;
  acousticScore: number;
}
