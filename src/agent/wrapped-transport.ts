import type { Transport } from './contracts.js';

/** The members a wrapper may replace: what it watches or adds to. */
export type TransportChanges = Partial<Pick<Transport, 'audio$' | 'play' | 'clear'>>;

/**
 * `inner` with some members replaced and every other one passed through as it is, optional ones included
 * (`describe`, `telephoneBand`, `playedMs`, …), so that a wrapper never drops what the call records or the
 * turn-taking read of the transport underneath.
 */
export function wrappedTransport(inner: Transport, changes: TransportChanges): Transport {
  return {
    ...(inner.describe ? { describe: () => inner.describe!() } : {}),
    audio$: changes.audio$ ?? inner.audio$,
    events$: inner.events$,
    // A getter: a LiveKit caller's trace context is read when the call starts.
    get traceContext() {
      return inner.traceContext;
    },
    ...(inner.playoutRate !== undefined ? { playoutRate: inner.playoutRate } : {}),
    ...(inner.telephoneBand !== undefined ? { telephoneBand: inner.telephoneBand } : {}),
    play: changes.play ?? ((frame) => inner.play(frame)),
    clear: changes.clear ?? (() => inner.clear()),
    ...(inner.playedMs ? { playedMs: () => inner.playedMs!() } : {}),
    ...(inner.pendingMs ? { pendingMs: () => inner.pendingMs!() } : {}),
    ...(inner.send ? { send: (message: unknown) => inner.send!(message) } : {}),
    hangup: (reason) => inner.hangup(reason),
  };
}
