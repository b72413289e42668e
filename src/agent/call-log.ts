import { randomUUID } from 'node:crypto';
import type { Logger } from '../logging/index.js';
import type { AgentEvent } from './events.js';
import type { CallSession } from './call-session.js';

/**
 * Logs one call through a child of `logger` carrying the call id and trace id: a line when it starts, one per
 * turn (caller text, agent text, metrics), one per error, and one when it ends. Returns the child logger.
 */
export function logCall(logger: Logger, session: CallSession, bindings: Record<string, unknown> = {}): Logger {
  const log = logger.child({ callId: randomUUID(), traceId: session.traceId, ...bindings });
  log.info('call started');
  session.events$.subscribe((event: AgentEvent) => {
    if (event.type === 'turn-metrics') {
      const { turn, userText, agentText, interrupted, metrics } = event.report;
      log.info({ turn, userText, agentText, interrupted, metrics }, `turn ${turn}`);
    } else if (event.type === 'error') {
      log.error({ stage: event.stage }, event.message);
    } else if (event.type === 'hangup') {
      const { summary } = event;
      log.info({ reason: event.reason, durationMs: summary.durationMs, turns: summary.turns.length, interruptions: summary.interruptions, errors: summary.errors, p50: summary.p50 }, 'call ended');
    }
  });
  return log;
}
