/**
 * Prometheus metrics and health probes: one registry per process (`metricsRegistry`) that every module adds
 * its metrics to (the agent adds call and turn-stage metrics, src/agent/call-metrics.ts), engine pool gauges, service counters, and `/healthz` `/readyz` `/metrics`.
 */
import './engine-metrics.js';
export { eventLoopPrecisionMs, metricsRegistry, startProcessMetrics } from './registry.js';
export { countHold, countRefusal, countTimeout, watchLiveSessions, type TimeoutKind } from './service-metrics.js';
export { handleProbe, probe, probePaths, type ProbeResponse, type Readiness } from './probes.js';
