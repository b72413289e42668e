import { concatMap, map, merge, Observable, of, Subject, type Subscription } from 'rxjs';
import { frameDurationMs, type AudioFrame } from '../../audio/frame.js';
import { Resampler } from '../../audio/index.js';
import type { CallTraceContext, Transport, TransportDescription, TransportEvent } from '../../agent/contracts.js';
import type { RoomLink, RoomParticipant } from './room-link.js';

/** A call in a LiveKit room: the caller's microphone in, the agent's voice track out. */
export class LiveKitTransport implements Transport {
  readonly audio$: Observable<AudioFrame>;
  readonly events$: Observable<TransportEvent>;
  /** A SIP participant is a phone caller: 8 kHz telephone audio in the room's track. */
  readonly telephoneBand: boolean;
  private readonly playout$ = new Subject<AudioFrame>();
  private playoutSubscription: Subscription;
  private resampler: Promise<Resampler> | undefined;
  private handedMs = 0;
  private agentHangupReason: string | undefined;

  constructor(
    private readonly link: RoomLink,
    caller?: Pick<RoomParticipant, 'kind'>,
  ) {
    this.telephoneBand = caller?.kind === 'sip';
    this.audio$ = link.callerAudio$;
    this.events$ = merge(
      of<TransportEvent>({ type: 'connected' }),
      link.dtmf$.pipe(map((digit): TransportEvent => ({ type: 'dtmf', digit }))),
      link.data$.pipe(map((data): TransportEvent => ({ type: 'message', data }))),
      link.callerLeft$.pipe(map((reason): TransportEvent => ({ type: 'hangup', reason }))),
    );
    this.playoutSubscription = this.startPlayout();
  }

  describe(): TransportDescription {
    return { kind: 'livekit', callId: this.link.roomName };
  }

  /** Read when the agent starts the call: a `traceparent` participant attribute continues the caller's trace. */
  get traceContext(): CallTraceContext {
    const { traceparent, tracestate } = this.link.callerAttributes();
    return { traceparent, tracestate };
  }

  play(frame: AudioFrame): void {
    this.playout$.next(frame);
  }

  clear(): void {
    this.playoutSubscription.unsubscribe();
    this.link.clearQueue();
    this.dropResampler();
    this.handedMs = 0;
    this.playoutSubscription = this.startPlayout();
  }

  playedMs(): number {
    return Math.max(0, this.handedMs - this.link.queuedMs());
  }

  send(message: unknown): void {
    this.link.sendData(message).catch(() => {
      // Data messages are captions and metrics; a lost one must not end the call.
    });
  }

  /** Why the agent ended the call, once it has; `undefined` while the call runs or when the caller ended it. */
  get agentHangup(): string | undefined {
    return this.agentHangupReason;
  }

  hangup(reason = 'agent hung up'): void {
    this.agentHangupReason ??= reason;
    this.playoutSubscription.unsubscribe();
    this.dropResampler();
    void this.link.disconnect();
  }

  private startPlayout(): Subscription {
    return this.playout$
      .pipe(
        concatMap(async (agentFrame) => {
          const frame = await this.toOutputRate(agentFrame);
          this.handedMs += frameDurationMs(frame);
          await this.link.publish(frame);
        }),
      )
      .subscribe();
  }

  private async toOutputRate(frame: AudioFrame): Promise<AudioFrame> {
    const outputRate = this.link.outputSampleRate;
    if (frame.sampleRate === outputRate) return frame;
    let resampler = await this.resampler;
    if (resampler?.inputRate !== frame.sampleRate) {
      resampler?.destroy();
      this.resampler = Resampler.create(frame.sampleRate, outputRate);
      resampler = await this.resampler;
    }
    return resampler.processFrame(frame);
  }

  private dropResampler(): void {
    void this.resampler?.then((resampler) => resampler.destroy());
    this.resampler = undefined;
  }
}
