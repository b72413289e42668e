import type { Stage } from './events.js';

/** A failure inside one stage of a turn (recognition, dialogue, speech); the call itself goes on. */
export class TurnStageError extends Error {
  constructor(
    readonly stage: Stage,
    override readonly cause: unknown,
  ) {
    super(`${stage} failed: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'TurnStageError';
  }
}

/** Wraps any error as a TurnStageError of `stage` (an existing one keeps its stage). */
export function inStage(stage: Stage, error: unknown): TurnStageError {
  return error instanceof TurnStageError ? error : new TurnStageError(stage, error);
}
