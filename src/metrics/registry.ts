import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * The process's one Prometheus registry: every Shoal metric registers here (pass `registers: [metricsRegistry]`),
 * and `GET /metrics` serves it. Node's own process metrics (CPU, RSS, event loop lag, GC) are included.
 */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });
