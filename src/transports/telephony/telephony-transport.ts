import type { Duplex } from 'node:stream';
import type { Observable } from 'rxjs';
import type { WebSocket } from 'ws';
import type { AudioFrame } from '../../audio/index.js';
import type { CallTraceContext, Transport, TransportDescription, TransportEvent } from '../../agent/contracts.js';
import { systemClock, type Clock } from '../../pipeline/clock.js';
import { PlayoutRateConverter } from '../playout-rate.js';
import { CallStreams } from '../call-streams.js';
import { twilioCarrier, type Carrier } from './carriers/index.js';
import { decodeMedia, encodeMedia, muLaw8k, type MediaFormat } from './media-format.js';

export interface TelephonyCallInfo {
  streamSid: string;
  callSid?: string;
  traceContext: CallTraceContext;
  customParameters: Record<string, string>;
  /** The carrier's protocol; Twilio when absent. */
  carrier?: Carrier;
  /** The stream's audio format; mu-law 8 kHz when absent. */
  format?: MediaFormat;
  /** Times the caller's frames and the transport's timers; the wall clock when absent (a virtual clock when a driver runs the call). */
  clock?: Clock;
  /** The network socket under the WebSocket: what one tick sends (media frames, marks) leaves in one write. */
  network?: Pick<Duplex, 'cork' | 'uncork'>;
}

export const telephonyTransportDefaults = {
  /** A hang-up waits at most this long for the carrier to confirm (by its mark echo) that the last words were played. */
  hangupDrainMs: 3_000,
};

/**
 * One phone call on a carrier's media stream, after its `start`: inbound audio becomes frames at the stream's
 * rate; `play()` is coded and sent at once (the carrier buffers and paces it), followed by a mark whose echo
 * tells how much has been played; `clear()` drops the carrier's buffer.
 */
export class TelephonyTransport implements Transport {
  readonly audio$: Observable<AudioFrame>;
  readonly events$: Observable<TransportEvent>;
  readonly traceContext: CallTraceContext;
  readonly streamSid: string;
  readonly callSid: string | undefined;
  readonly customParameters: Readonly<Record<string, string>>;
  readonly carrier: Carrier;
  readonly format: MediaFormat;
  /** Agent audio at the line's rate is coded as it comes; other rates are converted first. */
  readonly playoutRate: number;

  describe(): TransportDescription {
    const { from, to } = this.customParameters;
    return { kind: 'phone', carrier: this.carrier.name, callId: this.callSid ?? this.streamSid, ...(from ? { from } : {}), ...(to ? { to } : {}) };
  }

  private readonly streams: CallStreams;
  private readonly converter: PlayoutRateConverter;
  private readonly hangupHandlers: Array<(reason: string) => Promise<void> | void> = [];
  private generation = 0;
  private markSeq = 0;
  private sentSamples = 0;
  private playedSamples = 0;
  private drained: (() => void) | undefined;
  private hangingUp = false;
  private readonly clock: Clock;
  private readonly network: TelephonyCallInfo['network'];
  private corked = false;

  constructor(
    private readonly socket: WebSocket,
    info: TelephonyCallInfo,
  ) {
    this.streamSid = info.streamSid;
    this.callSid = info.callSid;
    this.traceContext = info.traceContext;
    this.customParameters = info.customParameters;
    this.carrier = info.carrier ?? twilioCarrier;
    this.format = info.format ?? muLaw8k;
    this.playoutRate = this.format.sampleRate;
    this.clock = info.clock ?? systemClock;
    this.network = info.network;
    this.streams = new CallStreams(this.format.sampleRate, () => this.clock.now());
    this.audio$ = this.streams.audio$;
    this.events$ = this.streams.events$;
    this.converter = new PlayoutRateConverter(
      this.format.sampleRate,
      (samples) => this.sendAudio(samples),
      (error) => this.streams.reportPlayoutError(error),
      this.clock.scheduler,
    );
  }

  /** Takes the coded payload of one inbound media frame. */
  receiveMedia(payload: Uint8Array | string): void {
    if (this.isEnded) return;
    const bytes = typeof payload === 'string' ? Buffer.from(payload, 'base64') : payload;
    const samples = decodeMedia(this.format, bytes);
    if (samples.length > 0) this.streams.receiveSamples(samples);
  }

  /** The carrier played our audio up to a mark we sent. */
  receiveMark(name: string): void {
    const match = /^g(\d+)-(\d+)-(\d+)$/.exec(name);
    if (!match || Number(match[1]) !== this.generation) return;
    this.playedSamples = Math.max(this.playedSamples, Number(match[3]));
    if (this.playedSamples >= this.sentSamples) this.drained?.();
  }

  receiveDtmf(digit: string): void {
    if (!this.isEnded) this.streams.emit({ type: 'dtmf', digit });
  }

  /** The carrier's answering-machine detection result for this call (it arrives by webhook, not on the stream). */
  receiveAnsweredBy(answeredBy: string): void {
    if (!this.isEnded) this.streams.emit({ type: 'answered-by', answeredBy });
  }

  play(frame: AudioFrame): void {
    if (!this.isEnded) this.converter.push(frame);
  }

  clear(): void {
    if (this.isEnded) return;
    this.converter.reset();
    this.generation++;
    this.sentSamples = 0;
    this.playedSamples = 0;
    this.drained?.();
    this.sendFrame(this.carrier.clear(this.streamSid));
  }

  /** Resolves once the agent audio handed to `play()` so far has been coded and sent (rate conversion is asynchronous). */
  playoutSent(): Promise<void> {
    return this.converter.idle();
  }

  /** Ms of agent audio the carrier has confirmed played (by echoing our marks) since the last `clear()`. */
  playedMs(): number {
    return (this.playedSamples * 1000) / this.format.sampleRate;
  }

  /** Ms of agent audio sent but not yet confirmed played. */
  pendingMs(): number {
    return ((this.sentSamples - this.playedSamples) * 1000) / this.format.sampleRate;
  }

  /**
   * Runs `handler` when the agent hangs up, once the last words are confirmed played and before the stream
   * closes (e.g. to end or transfer the call through the carrier's REST API: closing a Twilio `<Connect>`
   * stream first would move the call on to the next TwiML verb).
   */
  onHangup(handler: (reason: string) => Promise<void> | void): void {
    this.hangupHandlers.push(handler);
  }

  /** The agent ends the call: once what was sent has been played (or after `hangupDrainMs`), the stream closes. */
  hangup(reason?: string): void {
    if (this.isEnded || this.hangingUp) return;
    this.hangingUp = true;
    const why = reason ?? 'agent hung up';
    const finish = () => {
      if (this.isEnded) return;
      this.drained = undefined;
      timer.unsubscribe();
      this.end(why);
      void Promise.allSettled(this.hangupHandlers.map(async (handler) => handler(why))).then(() => this.socket.close(1000, 'call ended'));
    };
    const timer = this.clock.scheduler.schedule(finish, this.pendingMs() > 0 ? telephonyTransportDefaults.hangupDrainMs : 0);
    this.drained = finish;
  }

  /** The stream stopped or the socket closed: completes the streams. */
  end(reason: string): void {
    this.streams.end(reason, () => this.converter.close());
  }

  get isEnded(): boolean {
    return this.streams.isEnded;
  }

  private sendAudio(samples: Int16Array): void {
    if (this.isEnded || samples.length === 0) return;
    const frameSamples = (this.carrier.frameMs * this.format.sampleRate) / 1000;
    for (let offset = 0; offset < samples.length; offset += frameSamples) {
      let piece = samples.subarray(offset, offset + frameSamples);
      if (this.carrier.padFrames && piece.length < frameSamples) {
        const padded = new Int16Array(frameSamples);
        padded.set(piece);
        piece = padded;
      }
      const payload = encodeMedia(this.format, piece);
      this.sendFrame(this.carrier.media(this.streamSid, this.format, payload));
      this.sentSamples += piece.length;
    }
    this.markSeq++;
    this.sendFrame(this.carrier.mark(this.streamSid, `g${this.generation}-${this.markSeq}-${this.sentSamples}`));
  }

  private sendFrame(frame: string | Buffer): void {
    if (this.socket.readyState !== this.socket.OPEN) return;
    if (this.network && !this.corked) {
      // Frames sent in the same tick are held and written together once it ends: one write, not one per frame.
      this.corked = true;
      this.network.cork();
      process.nextTick(() => this.uncork());
    }
    this.socket.send(frame);
  }

  private uncork(): void {
    this.corked = false;
    this.network!.uncork();
  }
}
