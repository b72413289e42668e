import { timer, type Subscription } from 'rxjs';
import type { Clock } from '../pipeline/clock.js';

export interface CallTimerOptions {
  userSilenceTimeoutMs: number;
  maxReprompts: number;
  maxCallMs: number;
}

export interface CallTimerActions {
  /** The caller stayed silent after the agent spoke: say a reprompt. */
  reprompt(): void;
  /** Silent through every reprompt, or the call reached its maximum length: say goodbye and hang up. */
  goodbye(reason: string): void;
}

/** The call's clocks: the caller-silence timeout with its reprompts, and the maximum call length. */
export class CallTimers {
  private silence: Subscription | undefined;
  private readonly maxCall: Subscription;
  private reprompts = 0;

  constructor(
    private readonly clock: Clock,
    private readonly options: CallTimerOptions,
    private readonly actions: CallTimerActions,
  ) {
    this.maxCall = timer(options.maxCallMs, clock.scheduler).subscribe(() => actions.goodbye('maximum call length reached'));
  }

  /** The agent finished speaking: wait for the caller. */
  awaitCaller(): void {
    this.silence?.unsubscribe();
    this.silence = timer(this.options.userSilenceTimeoutMs, this.clock.scheduler).subscribe(() => {
      if (this.reprompts >= this.options.maxReprompts) {
        this.actions.goodbye('caller silent');
        return;
      }
      this.reprompts++;
      this.actions.reprompt();
    });
  }

  /** The caller made a sound: the silence timeout stops. */
  callerSpoke(): void {
    this.silence?.unsubscribe();
  }

  /** The caller took a turn: reprompts start again from zero. */
  callerTookTurn(): void {
    this.reprompts = 0;
  }

  stop(): void {
    this.silence?.unsubscribe();
    this.maxCall.unsubscribe();
  }
}
