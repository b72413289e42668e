import { describe, expect, it } from 'vitest';
import { CallRecognizer } from '../../src/agent/stt/call-recognizer.js';
import type { Expectation } from '../../src/speech/index.js';
import type { Hypothesis, StreamingRecognizer } from '../../src/engines/index.js';

/** A recognizer double that records what it was told, in order. */
function recording(log: string[]): StreamingRecognizer {
  const heard: Hypothesis = { text: 'four one', words: [] };
  return {
    write: async (pcm) => void log.push(`write ${pcm.length}`),
    expect: async (expectations) => void log.push(`expect ${expectations?.map((e) => e.kind).join(',')}`),
    partial: async () => heard,
    finish: async () => (log.push('finish'), heard),
    close: () => void log.push('close'),
  } as StreamingRecognizer;
}

describe('CallRecognizer', () => {
  it("makes the recognizer at the caller's first audio, not when expectations come first, and gives it those", async () => {
    const log: string[] = [];
    const made: string[] = [];
    let lineRate: number | undefined;
    const call = new CallRecognizer(() => (made.push(`made at ${lineRate}`), recording(log)));
    const digits: Expectation[] = [{ kind: 'digits' }];
    await call.expect(digits);
    expect(made).toEqual([]);
    lineRate = 8000;
    await call.write(new Int16Array(160));
    expect(made).toEqual(['made at 8000']);
    expect(log).toEqual(['expect digits', 'write 160']);
    await call.expect([{ kind: 'yes-no' }]);
    expect(await call.finish()).toMatchObject({ text: 'four one' });
    expect(log).toEqual(['expect digits', 'write 160', 'expect yes-no', 'finish']);
  });

  it('refuses work once released', async () => {
    const call = new CallRecognizer(() => recording([]));
    call.release();
    await expect(call.expect(undefined)).rejects.toThrow(/released/);
  });
});
