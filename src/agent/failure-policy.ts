import type { Span } from '@opentelemetry/api';
import type { FailureStage, Stage } from './events.js';

/** What the caller hears when a stage fails, and when repeated failures end the call. */
export interface FailureOptions {
  /** The line spoken for a failed turn, per stage the caller notices failing. */
  lines: Record<FailureStage, string>;
  /** Failed turns in a row (with no successful reply between them) after which the agent says `hangupLine` and hangs up; 0 never. */
  hangupAfter: number;
  hangupLine: string;
}

export const defaults: FailureOptions = {
  lines: {
    listening: "Sorry, I didn't catch that. Could you say it again?",
    thinking: "Sorry, I can't answer right now. Please give me a moment and try again.",
    speaking: "Sorry, I'm having trouble speaking right now. Please bear with me.",
  },
  hangupAfter: 3,
  hangupLine: "I'm sorry, I'm having technical difficulties. Please call again later. Goodbye.",
};

export function failureStage(stage: Stage): FailureStage {
  if (stage === 'asr' || stage === 'vad') return 'listening';
  if (stage === 'dialogue') return 'thinking';
  return 'speaking';
}

export interface FailureVerdict {
  stage: FailureStage;
  line: string;
  /** Failed turns in a row, this one included. */
  failures: number;
  hangup: boolean;
}

/** Counts a call's failed turns in a row and decides the line and whether to hang up. */
export class FailurePolicy {
  private inARow = 0;

  constructor(private readonly options: FailureOptions) {}

  /** A turn failed in `stage`; the verdict is also an `assistant-unavailable` event on `span`, when given. */
  failed(stage: Stage, span?: Span): FailureVerdict {
    this.inARow++;
    const hangup = this.options.hangupAfter > 0 && this.inARow >= this.options.hangupAfter;
    const failureKind = failureStage(stage);
    span?.addEvent('assistant-unavailable', { 'shoal.stage': failureKind, 'shoal.failures': this.inARow, 'shoal.hangup': hangup });
    return { stage: failureKind, failures: this.inARow, hangup, line: hangup ? this.options.hangupLine : this.options.lines[failureKind] };
  }

  succeeded(): void {
    this.inARow = 0;
  }
}
