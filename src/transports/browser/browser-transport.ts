import { Observable, Subject, concat, of } from 'rxjs';
import type { WebSocket } from 'ws';
import { bytesToInt16, int16ToBytes, type AudioFrame } from '../../audio/index.js';
import type { CallTraceContext, Transport, TransportEvent } from '../../agent/contracts.js';
import { PacedPlayout, type PacedPlayoutOptions } from './paced-playout.js';
import { browserProtocol, type ClientMessage, type ServerMessage } from './protocol.js';
import { PlayoutRateConverter } from '../playout-rate.js';

export interface BrowserCallInfo {
  callId: string;
  traceContext: CallTraceContext;
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

  private readonly audioSubject = new Subject<AudioFrame>();
  private readonly eventSubject = new Subject<TransportEvent>();
  private readonly playout: PacedPlayout;
  private readonly converter: PlayoutRateConverter;
  private lastFrameEndMs = 0;
  private ended = false;

  constructor(
    private readonly socket: WebSocket,
    info: BrowserCallInfo,
    playoutOptions: Partial<Omit<PacedPlayoutOptions, 'sampleRate'>> = {},
  ) {
    this.callId = info.callId;
    this.traceContext = info.traceContext;
    this.audio$ = this.audioSubject.asObservable();
    this.events$ = concat(of<TransportEvent>({ type: 'connected' }), this.eventSubject);
    this.playout = new PacedPlayout((chunk) => this.sendBinary(chunk), {
      ...playoutOptions,
      sampleRate: browserProtocol.sampleRate,
    });
    this.converter = new PlayoutRateConverter(
      browserProtocol.sampleRate,
      (samples) => this.playout.enqueue(samples),
      (error) => this.eventSubject.next({ type: 'message', data: { type: 'playout_error', message: String(error) } }),
    );
  }

  /** Takes one binary frame from the page (already checked to hold whole samples). */
  receiveAudio(bytes: Uint8Array): void {
    if (this.ended) return;
    const samples = bytesToInt16(bytes);
    const durationMs = (samples.length * 1000) / browserProtocol.sampleRate;
    const timestampMs = Math.max(this.lastFrameEndMs, performance.now() - durationMs);
    this.lastFrameEndMs = timestampMs + durationMs;
    this.audioSubject.next({ samples, sampleRate: browserProtocol.sampleRate, timestampMs });
  }

  /** Takes one control message from the page, after the `hello`. */
  receiveControl(message: ClientMessage): void {
    if (this.ended) return;
    switch (message.type) {
      case 'hangup':
        this.end(message.reason ?? 'caller hung up');
        return;
      case 'dtmf':
        this.eventSubject.next({ type: 'dtmf', digit: message.digit });
        return;
      default:
        this.eventSubject.next({ type: 'message', data: message });
    }
  }

  play(frame: AudioFrame): void {
    if (this.ended) return;
    this.converter.push(frame);
  }

  clear(): void {
    if (this.ended) return;
    this.converter.reset();
    this.playout.clear();
    this.send({ type: 'clear' });
  }

  playedMs(): number {
    return this.playout.playedMs();
  }

  /** Ms of agent audio handed to `play()` that has not been played out yet. */
  pendingMs(): number {
    return this.playout.pendingMs();
  }

  send(message: unknown): void {
    if (this.ended || this.socket.readyState !== this.socket.OPEN) return;
    this.socket.send(JSON.stringify(message as ServerMessage));
  }

  /** The agent ends the call: tells the page, then closes the socket. */
  hangup(reason?: string): void {
    if (this.ended) return;
    this.send({ type: 'hangup', reason } satisfies ServerMessage);
    this.end(reason ?? 'agent hung up');
    this.socket.close(1000, 'call ended');
  }

  /** The socket is gone or the caller hung up: completes the streams and frees the playout. */
  end(reason: string): void {
    if (this.ended) return;
    this.ended = true;
    this.converter.close();
    this.playout.close();
    this.eventSubject.next({ type: 'hangup', reason });
    this.eventSubject.complete();
    this.audioSubject.complete();
  }

  get isEnded(): boolean {
    return this.ended;
  }

  private sendBinary(chunk: Int16Array): void {
    if (this.socket.readyState !== this.socket.OPEN) return;
    this.socket.send(int16ToBytes(chunk), { binary: true });
  }
}
