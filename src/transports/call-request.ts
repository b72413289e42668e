import { formatTraceparent, newSpanId, newTraceId, parseTraceparent } from '../tracing/index.js';

export type CallMode = 'low-latency' | 'balanced';

/** What a caller asked for when its call started (a browser `hello`, a phone stream's custom parameters). */
export interface CallRequest {
  /** The call's trace context: the caller's valid `traceparent`, or a fresh one. */
  traceparent: string;
  tracestate?: string;
  mode?: CallMode;
  agent?: string;
}

/** What runs a call once a transport has one; `stop()` is called when the call ends for any reason. */
export interface RunningCall {
  /** The agent name and mode actually used. */
  agent: string;
  mode: CallMode;
  stop(): void;
}

/** @deprecated renamed `RunningCall` (the agent's per-call session is `CallSession` in shoal/agent). */
export type CallSession = RunningCall;

/** Starts the agent of one call on a transport; throws CallRejectedError when the request cannot run. */
export type StartCall<T> = (transport: T, request: CallRequest) => RunningCall | Promise<RunningCall>;

/** The caller asked for something that cannot run (e.g. an unknown agent); the caller is told `code` and `message`. */
export class CallRejectedError extends Error {
  override readonly name = 'CallRejectedError';
  readonly status = 400;
  constructor(
    readonly code: 'unknown_agent' | 'bad_request',
    message: string,
  ) {
    super(message);
  }
}

/** The first valid `traceparent` among the candidates, normalised; a fresh sampled one when none is valid. */
export function callTraceparent(...candidates: Array<string | null | undefined>): string {
  for (const candidate of candidates) {
    const parsed = parseTraceparent(candidate);
    if (parsed) return formatTraceparent(parsed);
  }
  return formatTraceparent({ traceId: newTraceId(), parentId: newSpanId(), flags: 1 });
}

export function isCallMode(value: unknown): value is CallMode {
  return value === 'low-latency' || value === 'balanced';
}

/**
 * The agent takes no more calls now (every line in use, or the process is draining). Transports answer at
 * once without touching the calls in progress: the browser page is told the agent is busy, a phone caller
 * hears a short busy line.
 */
export class AgentBusyError extends Error {
  override readonly name = 'AgentBusyError';
  readonly status = 503;
  constructor(
    readonly reason: 'full' | 'draining',
    /** A suggested wait before calling again. */
    readonly retryAfterMs: number,
  ) {
    super(reason === 'full' ? 'the agent is busy: every line is in use; try again in a minute' : 'the agent is shutting down; try again shortly');
  }
}
