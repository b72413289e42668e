import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * The process's one Prometheus registry: every Shoal metric registers here (pass `registers: [metricsRegistry]`),
 * and `GET /metrics` serves it.
 */
export const metricsRegistry = new Registry();

let processMetrics = false;

/**
 * Adds Node's own process metrics (CPU, RSS, event loop lag, GC) to the registry. Called when a server that
 * serves `/metrics` starts, not at import: they start timers and observers a library user did not ask for.
 */
export function startProcessMetrics(): void {
  if (processMetrics) return;
  processMetrics = true;
  collectDefaultMetrics({ register: metricsRegistry });
}
