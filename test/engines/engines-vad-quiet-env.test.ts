import { afterEach, describe, expect, test } from 'vitest';
import { SileroVad, type SileroRunner } from '../../src/engines/index.js';
import { quietBelowFromEnv } from '../../src/engines/vad/silero-vad.js';

/** A runner that counts the model runs and scores every frame as silence. */
function countingRunner(): SileroRunner & { runs: number } {
  const runner = {
    runs: 0,
    ready: Promise.resolve(),
    run: async (_input: Float32Array, state: Float32Array) => {
      runner.runs++;
      return { probability: 0.01, state };
    },
  };
  return runner;
}

const silence = new Int16Array(256);

afterEach(() => {
  delete process.env['SHOAL_VAD_QUIET_BELOW_DBFS'];
});

describe('SHOAL_VAD_QUIET_BELOW_DBFS', () => {
  test('reads a level below 0 dBFS or off (every frame); unset or empty gives the default', () => {
    expect(quietBelowFromEnv({ SHOAL_VAD_QUIET_BELOW_DBFS: '-55' })).toBe(-55);
    expect(quietBelowFromEnv({})).toBe(-Infinity);
    expect(quietBelowFromEnv({ SHOAL_VAD_QUIET_BELOW_DBFS: ' ' })).toBe(-Infinity);
    expect(quietBelowFromEnv({}, -55)).toBe(-55);
    expect(quietBelowFromEnv({ SHOAL_VAD_QUIET_BELOW_DBFS: ' off ' }, -55)).toBe(-Infinity);
    expect(quietBelowFromEnv({ SHOAL_VAD_QUIET_BELOW_DBFS: '-60' }, -55)).toBe(-60);
  });

  test('refuses what is not a level below 0 dBFS, naming the variable', () => {
    for (const bad of ['loud', '0', '6', 'Infinity']) {
      expect(() => quietBelowFromEnv({ SHOAL_VAD_QUIET_BELOW_DBFS: bad })).toThrow(/SHOAL_VAD_QUIET_BELOW_DBFS must be a level below 0 dBFS .*got/);
    }
    process.env['SHOAL_VAD_QUIET_BELOW_DBFS'] = 'loud';
    expect(() => new SileroVad(countingRunner())).toThrow(RangeError);
  });

  test("sets the detectors' default: settled quiet skips the model", async () => {
    const scoreAll = countingRunner();
    const detector = new SileroVad(scoreAll);
    for (let i = 0; i < 20; i++) await detector.probability(silence, 8000);
    expect(scoreAll.runs).toBe(20);

    process.env['SHOAL_VAD_QUIET_BELOW_DBFS'] = '-55';
    const gated = countingRunner();
    const quiet = new SileroVad(gated);
    for (let i = 0; i < 20; i++) expect(await quiet.probability(silence, 8000)).toBeLessThan(0.15);
    expect(gated.runs).toBe(8); // the settle frames, then none

    const explicit = countingRunner();
    const everyFrame = new SileroVad(explicit, { quietBelowDbfs: -Infinity });
    for (let i = 0; i < 20; i++) await everyFrame.probability(silence, 8000);
    expect(explicit.runs).toBe(20);
  });
});
