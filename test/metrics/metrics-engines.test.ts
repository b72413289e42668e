import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { EnginePool } from '../../src/engines/pool/index.js';
import { metricsRegistry } from '../../src/metrics/index.js';
import { parsePrometheus } from '../support/prometheus-text.js';

describe('engine pool metrics', () => {
  it('sum the pools of one name: two engines of a kind, a call pinned on each, show two pinned', async () => {
    // A name of this test's own: the process's other pools are not counted in it.
    const pools = [0, 1].map(() => new EnginePool(() => new Worker('', { eval: true }), { name: 'metrics-sum-test', size: 1 }));
    const pins = pools.map((pool) => pool.pin());
    try {
      const samples = parsePrometheus(await metricsRegistry.metrics());
      expect(samples.get('shoal_engine_pinned{pool="metrics-sum-test"}')).toBe(2);
      pins[0]!.release();
      expect(parsePrometheus(await metricsRegistry.metrics()).get('shoal_engine_pinned{pool="metrics-sum-test"}')).toBe(1);
    } finally {
      for (const pin of pins) pin.release();
      await Promise.all(pools.map((pool) => pool.stop()));
    }
  });
});
