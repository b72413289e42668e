import { describe, expect, it } from 'vitest';
import type { DecoderHost, DecoderLease } from '../../src/engines/pocketsphinx/decoder-host.js';
import { PocketSphinxRecognizer } from '../../src/engines/pocketsphinx/streaming-recognizer.js';

type Body = Parameters<DecoderLease['request']>[0];

/** A decoder host double: requests are answered in order, when `answer()` is called, as the worker answers them. */
function host() {
  const sent: Body[] = [];
  const waiting: Array<{ body: Body; settle: () => void }> = [];
  const failing = new Set<number>();
  const lease: DecoderLease = {
    request: (body) => {
      sent.push(body);
      const at = sent.length;
      return new Promise((resolve, reject) => {
        waiting.push({ body, settle: () => (failing.has(at) ? reject(new Error(`pocketsphinx: request ${at} failed`)) : resolve({ seq: at, ok: true, hypothesis: { text: `after ${at - 1}`, words: [] } })) });
      });
    },
    release: async () => undefined,
  };
  const double = { lease: () => ({ lease, opened: Promise.resolve({ seq: 0, ok: true as const }) }) } as unknown as DecoderHost;
  return {
    double,
    sent,
    failing,
    /** The worker answers every request sent so far, in order. */
    answer: () => {
      for (const request of waiting.splice(0)) request.settle();
    },
  };
}

describe('PocketSphinxRecognizer writes', () => {
  it('does not wait for a write to be decoded, and finish answers after every write before it', async () => {
    const worker = host();
    const recognizer = new PocketSphinxRecognizer(worker.double, true);
    await recognizer.write(new Int16Array(512));
    await recognizer.write(new Int16Array(512));
    // Both writes resolved with nothing answered yet: the caller ran on while the worker decodes.
    expect(worker.sent.map((body) => body.op)).toEqual(['write', 'write']);
    const finished = recognizer.finish();
    await new Promise((resolve) => setImmediate(resolve));
    worker.answer();
    expect((await finished).text).toBe('after 2');
    expect(worker.sent.map((body) => body.op)).toEqual(['write', 'write', 'finish']);
  });

  it('reports a write that failed at the next request that reads the decoder', async () => {
    const worker = host();
    worker.failing.add(1);
    const recognizer = new PocketSphinxRecognizer(worker.double, true);
    await recognizer.write(new Int16Array(512));
    await recognizer.write(new Int16Array(512));
    const finished = expect(recognizer.finish()).rejects.toThrow('pocketsphinx: request 1 failed');
    await new Promise((resolve) => setImmediate(resolve));
    worker.answer();
    await finished;
    // And every read after it, until the recognizer is closed (the call then takes a new one).
    const partial = expect(recognizer.partial()).rejects.toThrow('request 1 failed');
    await new Promise((resolve) => setImmediate(resolve));
    worker.answer();
    await partial;
  });
});
