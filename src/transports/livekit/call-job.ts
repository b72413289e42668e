import { filter, firstValueFrom, map, race, timer, type Subscription } from 'rxjs';
import type { CallSession, VoiceAgent } from '../../agent/index.js';
import type { CallerSelection } from './caller-selection.js';
import { defaults as controlDefaults, type CallControl } from './call-control.js';
import { LiveKitTransport } from './livekit-transport.js';
import { RoomConventions, type RoomConventionOptions } from './room-conventions.js';
import type { RoomLink, RoomParticipant } from './room-link.js';
import { connectRoom, type ConnectRoomOptions } from './rtc-room-link.js';
import type { AssignedJob, JobOutcome, JobRunner, RunningJob } from './worker/jobs.js';

export interface CallJobOptions {
  /** The agent that talks to each caller (one agent serves many calls), or one per job. */
  agent: VoiceAgent | ((job: AssignedJob) => VoiceAgent);
  /** Which participant is the caller; default: the first standard, SIP or connector participant. */
  caller?: CallerSelection;
  /** How long a job waits for its caller to join before it gives up, in ms. */
  callerWaitMs?: number;
  /** How long to wait, once the caller is there, for a `traceparent` attribute set after joining, in ms. */
  traceWaitMs?: number;
  /** Ends and transfers calls through the server API; without it, the agent just leaves the room. */
  control?: CallControl;
  conventions?: RoomConventionOptions;
  /** Joins the room; default `connectRoom` over `@livekit/rtc-node` (tests pass a room double). */
  connect?(options: ConnectRoomOptions): Promise<RoomLink>;
  /** Each call as it starts, to watch its events. */
  onCall?(call: { job: AssignedJob; session: CallSession; caller: RoomParticipant }): void;
  /** Lines for the operator. */
  log?(line: string): void;
}

export const defaults = {
  callerWaitMs: 120_000,
  traceWaitMs: 500,
};

/** A job runner for `LiveKitWorker`: each assignment becomes a call between the agent and the room's caller. */
export function callJobRunner(options: CallJobOptions): JobRunner {
  return (job) => new CallJob(job, options);
}

/**
 * One call in one room: join, wait for the caller, take their trace, greet, talk until one side ends it,
 * then end the call for everyone (or transfer a SIP caller) as the dialogue asked.
 */
export class CallJob implements RunningJob {
  readonly joined: Promise<void>;
  readonly ended: Promise<JobOutcome>;
  private link: RoomLink | undefined;
  private session: CallSession | undefined;
  private stopReason: string | undefined;
  private stop!: (reason: string) => void;
  private readonly stopped: Promise<string>;

  constructor(
    private readonly job: AssignedJob,
    private readonly options: CallJobOptions,
  ) {
    this.stopped = new Promise((resolve) => (this.stop = resolve));
    const connect = options.connect ?? connectRoom;
    const linked = connect({ url: job.url, token: job.token, caller: options.caller });
    this.joined = linked.then(() => undefined);
    const room = job.job.room?.name ?? '';
    let phase: 'joining' | 'joined' | 'gave up' = 'joining';
    // Terminated while still joining: the job ends now; a room that connects later is left at once.
    const gaveUp = this.stopped.then((reason) => {
      if (phase === 'joined') return new Promise<JobOutcome>(() => undefined);
      phase = 'gave up';
      return { error: `${reason} before joining room ${room}` };
    });
    this.ended = Promise.race([
      linked.then(
        (link) => {
          if (phase === 'gave up') return link.disconnect().then(() => ({}));
          phase = 'joined';
          return this.run(link);
        },
        (error: unknown): JobOutcome => ({ error: `could not join room ${room}: ${message(error)}` }),
      ),
      gaveUp,
    ]);
  }

  terminate(reason: string): void {
    this.stopReason ??= reason;
    this.stop(reason);
    this.session?.hangup(reason);
  }

  private async run(link: RoomLink): Promise<JobOutcome> {
    this.link = link;
    const conventions = new RoomConventions(link, this.options.conventions);
    const subscriptions: Subscription[] = [];
    subscriptions.push(link.reconnecting$.subscribe((lost) => this.options.log?.(`room ${link.roomName}: ${lost ? 'connection lost, reconnecting' : 'reconnected'}`)));
    try {
      conventions.setState('initializing');
      const caller = await this.awaitCaller(link);
      if (!caller) return {};
      const transport = new LiveKitTransport(link, caller);
      const agent = typeof this.options.agent === 'function' ? this.options.agent(this.job) : this.options.agent;
      const session = agent.handle(transport);
      this.session = session;
      conventions.follow(session, caller.identity);
      let transferTo: Record<string, unknown> | undefined;
      subscriptions.push(
        session.events$.subscribe((event) => {
          if (event.type === 'tool-call' && event.name === controlDefaults.transferTool) transferTo = event.arguments;
        }),
      );
      this.options.onCall?.({ job: this.job, session, caller });
      if (this.stopReason) session.hangup(this.stopReason);
      await session.summary;
      const agentEnded = transport.agentHangup !== undefined && this.stopReason === undefined;
      if (agentEnded) await this.endCall(link, caller, transferTo);
      return {};
    } catch (error) {
      return { error: message(error) };
    } finally {
      for (const subscription of subscriptions) subscription.unsubscribe();
      conventions.close();
      await link.disconnect().catch(() => undefined);
    }
  }

  /** The caller, once they are in the room with their trace context; `undefined` if none came. */
  private async awaitCaller(link: RoomLink): Promise<RoomParticipant | undefined> {
    const callerWaitMs = this.options.callerWaitMs ?? defaults.callerWaitMs;
    const gone$ = race(
      link.callerLeft$,
      timer(callerWaitMs).pipe(map(() => `no caller joined within ${callerWaitMs} ms`)),
      this.stopped,
    ).pipe(map(() => undefined));
    const caller = await firstValueFrom(race(link.caller$, gone$), { defaultValue: undefined });
    if (!caller) {
      this.options.log?.(`room ${link.roomName}: no caller, leaving`);
      return undefined;
    }
    if (caller.attributes['traceparent']) return caller;
    const traced$ = link.caller$.pipe(filter((participant) => participant.attributes['traceparent'] !== undefined));
    const waited$ = timer(this.options.traceWaitMs ?? defaults.traceWaitMs).pipe(map(() => caller));
    return firstValueFrom(race(traced$, waited$, gone$), { defaultValue: undefined }).then((traced) => traced ?? caller);
  }

  private async endCall(link: RoomLink, caller: RoomParticipant, transferArgs: Record<string, unknown> | undefined): Promise<void> {
    const control = this.options.control;
    if (!control) return;
    if (transferArgs && caller.kind === 'sip') {
      try {
        const target = control.transferTarget(transferArgs);
        this.options.log?.(`room ${link.roomName}: transferring ${caller.identity} to ${target}`);
        await control.transfer(link.roomName, caller, target);
        return;
      } catch (error) {
        await control.endCall(link.roomName, caller); // a failed transfer must not leave the caller on hold
        throw error;
      }
    }
    await control.endCall(link.roomName, caller);
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
