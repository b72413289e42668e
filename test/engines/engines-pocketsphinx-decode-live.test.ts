/**
 * A whole recording heard in the telephone band is decoded as a call's first utterance (live CMN from the
 * band's starting mean), on a library double that records what ps_process_raw is given.
 */
import { describe, expect, test } from 'vitest';
import { SphinxDecoder } from '../../src/engines/pocketsphinx/sphinx-decoder.js';
import type { PocketSphinxLibrary } from '../../src/engines/pocketsphinx/sphinx-library.js';

function recordingLibrary() {
  const written: Array<{ samples: number; fullUtterance: boolean }> = [];
  const lib = {
    startStream: () => 0,
    startUtterance: () => 0,
    processRaw: (_decoder: unknown, pcm: Int16Array, fullUtterance: boolean) => {
      written.push({ samples: pcm.length, fullUtterance });
      return 0;
    },
    endUtterance: () => 0,
    hypothesis: () => 'hello',
    segments: () => [{ word: 'hello', startFrame: 0, endFrame: 99, acousticScore: -1000 }],
  } as unknown as PocketSphinxLibrary;
  return { lib, written };
}

describe('a recording decoded as a call hears it (decodeLive)', () => {
  test("is written in a call's 20 ms frames, not in one piece (sphinxbase's live CMN ended the process on 11 s)", () => {
    const { lib, written } = recordingLibrary();
    const decoder = new SphinxDecoder(lib, {}, undefined, { gaussians: () => ({ means: 'm', variances: 'v' }), reload: {} });
    const eleven = new Int16Array(11 * 16000 + 100);
    expect(decoder.decodeLive(eleven).text).toBe('hello');
    expect(written.every((w) => w.samples <= 320 && !w.fullUtterance)).toBe(true);
    expect(written.reduce((sum, w) => sum + w.samples, 0)).toBe(eleven.length);
    expect(written).toHaveLength(Math.ceil(eleven.length / 320));
  });
});
