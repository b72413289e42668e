/**
 * Prometheus metrics and health probes: one registry per process (`metricsRegistry`) that every module adds
 * its metrics to, call and turn-stage metrics, engine pool gauges, and `/healthz` `/readyz` `/metrics`.
 */
import './engine-metrics.js';
export { metricsRegistry } from './registry.js';
export { recordTurn, watchAdmission } from './call-metrics.js';
export { countHold, countRefusal, countTimeout, watchLiveSessions, type TimeoutKind } from './service-metrics.js';
export { handleProbe, probe, probePaths, type ProbeResponse, type Readiness } from './probes.js';
