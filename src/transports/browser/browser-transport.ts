import type { Observable } from 'rxjs';
import type { WebSocket } from 'ws';
import { bytesToInt16, int16ToBytes, type AudioFrame } from '../../audio/index.js';
import type { CallTraceContext, Transport, TransportDescription, TransportEvent } from '../../agent/contracts.js';
import { PacedPlayout, type PacedPlayoutOptions } from './paced-playout.js';
import { browserProtocol, type ClientMessage, type ServerMessage } from './protocol.js';
import { PlayoutRateConverter } from '../playout-rate.js';
import { CallStreams } from '../call-streams.js';
import { systemClock, type Clock } from '../../pipeline/clock.js';

export interface BrowserCallInfo {
  callId: string;
  traceContext: CallTraceContext;
  /** Times the caller's frames and paces the playout; the wall clock when absent (a virtual clock when a driver runs the call). */
  clock?: Clock;
}

/**
 * One browser call over an accepted WebSocket, after its `hello`: binary frames in become `audio$`,
 * `play()` is paced back out as binary frames, control messages become events or go out through `send()`.
 */
export class BrowserTransport implements Transport {
  readonly audio$: Observable<AudioFrame>;
  readonly events$: Observable<TransportEvent>;
  readonly traceContext: CallTraceContext;
  readonly callId: string;

  describe(): TransportDescription {
    return { kind: 'browser', callId: this.callId };
  }

  private readonly streams: CallStreams;
  private readonly playout: PacedPlayout;
  private readonly converter: PlayoutRateConverter;

  constructor(
    private readonly socket: WebSocket,
    info: BrowserCallInfo,
    playoutOptions: Partial<Omit<PacedPlayoutOptions, 'sampleRate'>> = {},
  ) {
    this.callId = info.callId;
    this.traceContext = info.traceContext;
    const clock = info.clock ?? systemClock;
    this.streams = new CallStreams(browserProtocol.sampleRate, () => clock.now());
    this.audio$ = this.streams.audio$;
    this.events$ = this.streams.events$;
    this.playout = new PacedPlayout(
      (chunk) => this.sendBinary(chunk),
      { ...playoutOptions, sampleRate: browserProtocol.sampleRate },
      () => clock.now(),
      clock.scheduler,
    );
    this.converter = new PlayoutRateConverter(
      browserProtocol.sampleRate,
      (samples) => this.playout.enqueue(samples),
      (error) => this.streams.reportPlayoutError(error),
      clock.scheduler,
    );
  }

  /** Takes one binary frame from the page (already checked to hold whole samples). */
  receiveAudio(bytes: Uint8Array): void {
    if (this.isEnded) return;
    this.streams.receiveSamples(bytesToInt16(bytes));
  }

  /** Takes one control message from the page, after the `hello`. */
  receiveControl(message: ClientMessage): void {
    if (this.isEnded) return;
    switch (message.type) {
      case 'hangup':
        this.end(message.reason ?? 'caller hung up');
        return;
      case 'dtmf':
        this.streams.emit({ type: 'dtmf', digit: message.digit });
        return;
      default:
        this.streams.emit({ type: 'message', data: message });
    }
  }

  play(frame: AudioFrame): void {
    if (this.isEnded) return;
    this.converter.push(frame);
  }

  clear(): void {
    if (this.isEnded) return;
    this.converter.reset();
    this.playout.clear();
    this.send({ type: 'clear' });
  }

  playedMs(): number {
    return this.playout.playedMs();
  }

  /** Resolves once the agent audio handed to `play()` so far has been converted and queued (rate conversion is asynchronous). */
  playoutSent(): Promise<void> {
    return this.converter.idle();
  }

  /** Ms of agent audio handed to `play()` that has not been played out yet. */
  pendingMs(): number {
    return this.playout.pendingMs();
  }

  send(message: unknown): void {
    if (this.isEnded || this.socket.readyState !== this.socket.OPEN) return;
    this.socket.send(JSON.stringify(message as ServerMessage));
  }

  /** The agent ends the call: tells the page, then closes the socket. */
  hangup(reason?: string): void {
    if (this.isEnded) return;
    this.send({ type: 'hangup', reason } satisfies ServerMessage);
    this.end(reason ?? 'agent hung up');
    this.socket.close(1000, 'call ended');
  }

  /** The socket is gone or the caller hung up: completes the streams and frees the playout. */
  end(reason: string): void {
    this.streams.end(reason, () => {
      this.converter.close();
      this.playout.close();
    });
  }

  get isEnded(): boolean {
    return this.streams.isEnded;
  }

  private sendBinary(chunk: Int16Array): void {
    if (this.socket.readyState !== this.socket.OPEN) return;
    this.socket.send(int16ToBytes(chunk), { binary: true });
  }
}
