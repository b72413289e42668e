/** An engine pool's queue is full: the request is refused at once rather than waiting behind the others. */
export class EngineBusyError extends Error {
  readonly status = 503;
  override readonly name = 'EngineBusyError';

  constructor(
    /** The pool that refused, e.g. "flite" or "encoders". */
    readonly pool: string,
    /** Tasks already waiting in that pool. */
    readonly queueDepth: number,
    /** A suggested wait before retrying (HTTP `Retry-After`, rounded up to seconds there). */
    readonly retryAfterMs: number,
  ) {
    super(`the ${pool} engine is busy (${queueDepth} tasks waiting); retry in ${retryAfterMs} ms`);
  }
}
