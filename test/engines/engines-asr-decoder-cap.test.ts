import { afterAll, describe, expect, test } from 'vitest';
import { PocketSphinxEngine } from '../../src/engines/index.js';
import { speechFixtures } from '../support/engines-fixtures.js';

const fixture = speechFixtures()[3]!;
const capped = new PocketSphinxEngine({ decodersPerWorker: 1, secondPass: false });
afterAll(() => capped.shutdown());

describe('decoders per worker', () => {
  test('a call waits for the one decoder, its audio kept, and is then heard as if it had had its own', async () => {
    const [first, second] = [capped.createRecognizer(), capped.createRecognizer()];
    const half = Math.floor(fixture.pcm.length / 2);
    await first.write(fixture.pcm.subarray(0, half));
    await second.write(fixture.pcm);
    expect((await first.partial()).text).not.toBe('');
    // Waiting: nothing decoded yet.
    expect((await second.partial()).text).toBe('');
    await first.write(fixture.pcm.subarray(half));
    const [heardFirst, heardSecond] = await Promise.all([first.finish(), second.finish()]);
    expect(heardFirst.text).toBe(fixture.text);
    expect(heardSecond.text).toBe(fixture.text);
    // The next utterance of the second call is decoded on the freed decoder at once.
    await second.write(fixture.pcm);
    expect((await second.partial()).text).not.toBe('');
    expect((await second.finish()).text).toBe(fixture.text);
    first.close();
    second.close();
  });

  test('a cap below one is refused', () => {
    expect(() => new PocketSphinxEngine({ decodersPerWorker: 0 })).toThrow(/decodersPerWorker must be a positive integer/);
  });
});
