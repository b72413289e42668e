import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * The process's one Prometheus registry: every Shoal metric registers here (pass `registers: [metricsRegistry]`),
 * and `GET /metrics` serves it.
 */
export const metricsRegistry = new Registry();

let processMetrics = false;

/**
 * How often the event-loop delay monitor ticks, ms. Its `nodejs_eventloop_lag_{min,max,mean,stddev,p50,p90,p99}_seconds`
 * are the times between ticks, so they include this interval (an idle loop reads 0.100 s; the lag is the rest);
 * `nodejs_eventloop_lag_seconds` is measured at each scrape and does not. prom-client's default, 10 ms, costs an idle
 * agent about 6 ms of CPU per second; 100 ms, about 1.
 */
export const eventLoopPrecisionMs = 100;

/**
 * Adds Node's own process metrics (CPU, RSS, event loop lag, GC) to the registry. Called when a server that
 * serves `/metrics` starts, not at import: they start timers and observers a library user did not ask for.
 */
export function startProcessMetrics(): void {
  if (processMetrics) return;
  processMetrics = true;
  collectDefaultMetrics({ register: metricsRegistry, eventLoopMonitoringPrecision: eventLoopPrecisionMs });
}
