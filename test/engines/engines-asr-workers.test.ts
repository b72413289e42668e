import { describe, expect, it } from 'vitest';
import { DecoderHost } from '../../src/engines/pocketsphinx/decoder-host.js';
import { defaults } from '../../src/engines/pocketsphinx/options.js';
import { EnginePool } from '../../src/engines/pool/index.js';

/** Two calls' recognizers opened on a host of two worker threads: how many workers they started. */
async function workersStartedByTwoCalls(callsPerWorker: number): Promise<number> {
  const before = new Set(EnginePool.all);
  const host = new DecoderHost({ ...defaults, callsPerWorker, idleDecoders: 1 }, { size: 2 });
  const pool = [...EnginePool.all].find((candidate) => !before.has(candidate))!;
  try {
    const calls = [host.lease(true), host.lease(true)];
    await Promise.all(calls.map((call) => call.opened));
    const running = pool.stats.running;
    await Promise.all(calls.map((call) => call.lease.release()));
    return running;
  } finally {
    await host.shutdown();
  }
}

describe('recognizer worker threads', () => {
  it('keeps two calls on one worker by default, and spreads them over two with callsPerWorker 1', async () => {
    expect(await workersStartedByTwoCalls(defaults.callsPerWorker)).toBe(1);
    expect(await workersStartedByTwoCalls(1)).toBe(2);
  });
});
