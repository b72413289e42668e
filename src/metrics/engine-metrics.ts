import { Counter, Gauge } from 'prom-client';
import { EnginePool, type PoolStats } from '../engines/pool/index.js';
import { metricsRegistry } from './registry.js';

function poolGauge(name: string, help: string, read: (stats: PoolStats) => number): void {
  new Gauge({
    name,
    help,
    labelNames: ['pool'] as const,
    registers: [metricsRegistry],
    // Summed over the pools of one name: a process may have several (two agent stacks, each with its engines).
    collect() {
      this.reset();
      for (const pool of EnginePool.all) this.inc({ pool: pool.options.name }, read(pool.stats));
    },
  });
}

poolGauge('shoal_engine_queue_depth', 'Engine tasks waiting for a worker thread', (s) => s.queueDepth);
poolGauge('shoal_engine_busy', 'Engine tasks running on worker threads', (s) => s.busy);
poolGauge('shoal_engine_workers', 'Worker threads started', (s) => s.running);
poolGauge('shoal_engine_pinned', 'Users pinned to a worker (e.g. one per call recognizer)', (s) => s.pinned);

new Counter({
  name: 'shoal_engine_active_seconds_total',
  help: 'Seconds worker threads of each engine pool spent working since they started; its rate is the cores the engine uses',
  labelNames: ['pool'] as const,
  registers: [metricsRegistry],
  collect() {
    this.reset();
    for (const pool of EnginePool.all) this.inc({ pool: pool.options.name }, pool.stats.activeMs / 1000);
  },
});
