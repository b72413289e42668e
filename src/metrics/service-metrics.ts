import { Counter, Gauge } from 'prom-client';
import { metricsRegistry } from './registry.js';

/** Why a connection was ended for taking too long. */
export type TimeoutKind = 'headers' | 'body-stall' | 'live-start' | 'live-unread' | 'listen-idle';

const refusals = new Counter({
  name: 'shoal_service_refusals_total',
  help: 'Requests refused before any work: 402 (credit), 429 (per-key limit), 503 (busy, draining, at capacity)',
  labelNames: ['status'] as const,
  registers: [metricsRegistry],
});

const holds = new Counter({
  name: 'shoal_service_credit_holds_total',
  help: 'Credit holds asked for (a request or a live segment reserving its price), by outcome: held or refused',
  labelNames: ['outcome'] as const,
  registers: [metricsRegistry],
});

const timeouts = new Counter({
  name: 'shoal_connection_timeouts_total',
  help: 'Connections of shoal serve or shoal agent ended for taking too long (408): headers, a stalled body, a live socket without start, an unread live socket',
  labelNames: ['kind'] as const,
  registers: [metricsRegistry],
});

const liveSources = new Set<() => number>();
new Gauge({
  name: 'shoal_service_live_sessions',
  help: 'Live TTS WebSocket sessions open',
  registers: [metricsRegistry],
  collect() {
    let open = 0;
    for (const read of liveSources) open += read();
    this.set(open);
  },
});

/** Counts a refusal by its status; statuses that are not refusals (everything but 402, 429, 503) are ignored. */
export function countRefusal(status: number): void {
  if (status === 402 || status === 429 || status === 503) refusals.inc({ status: String(status) });
}

export function countHold(outcome: 'held' | 'refused'): void {
  holds.inc({ outcome });
}

export function countTimeout(kind: TimeoutKind): void {
  timeouts.inc({ kind });
}

/** Reports the live sessions a live endpoint holds open; returns the function that stops reporting them. */
export function watchLiveSessions(open: () => number): () => void {
  liveSources.add(open);
  return () => liveSources.delete(open);
}
