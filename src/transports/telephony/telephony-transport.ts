import type { Observable } from 'rxjs';
import type { WebSocket } from 'ws';
import { decodeMuLaw, encodeMuLaw, type AudioFrame } from '../../audio/index.js';
import type { CallTraceContext, Transport, TransportEvent } from '../../agent/contracts.js';
import { PlayoutRateConverter } from '../playout-rate.js';
import { CallStreams } from '../call-streams.js';
import { mediaStream, type OutboundMessage } from './media-stream-messages.js';

export interface TelephonyCallInfo {
  streamSid: string;
  callSid?: string;
  traceContext: CallTraceContext;
  customParameters: Record<string, string>;
}

/**
 * One phone call on a media stream, after its `start`: inbound mu-law becomes 8 kHz `audio$`; `play()` is
 * encoded and sent at once (the provider buffers and paces it), followed by a `mark` whose echo tells how
 * much has been played; `clear()` sends `clear`.
 */
export class TelephonyTransport implements Transport {
  readonly audio$: Observable<AudioFrame>;
  readonly events$: Observable<TransportEvent>;
  readonly traceContext: CallTraceContext;
  readonly streamSid: string;
  readonly callSid: string | undefined;
  readonly customParameters: Readonly<Record<string, string>>;

  private readonly streams = new CallStreams(mediaStream.sampleRate);
  private readonly converter: PlayoutRateConverter;
  private generation = 0;
  private markSeq = 0;
  private sentSamples = 0;
  private playedSamples = 0;

  constructor(
    private readonly socket: WebSocket,
    info: TelephonyCallInfo,
  ) {
    this.streamSid = info.streamSid;
    this.callSid = info.callSid;
    this.traceContext = info.traceContext;
    this.customParameters = info.customParameters;
    this.audio$ = this.streams.audio$;
    this.events$ = this.streams.events$;
    this.converter = new PlayoutRateConverter(
      mediaStream.sampleRate,
      (samples) => this.sendAudio(samples),
      (error) => this.streams.reportPlayoutError(error),
    );
  }

  /** Takes the base64 mu-law payload of one inbound `media` event. */
  receiveMedia(payload: string): void {
    if (this.isEnded) return;
    const samples = decodeMuLaw(Buffer.from(payload, 'base64'));
    if (samples.length === 0) return;
    this.streams.receiveSamples(samples);
  }

  /** The provider played our audio up to a mark we sent. */
  receiveMark(name: string): void {
    const match = /^g(\d+)-(\d+)-(\d+)$/.exec(name);
    if (!match || Number(match[1]) !== this.generation) return;
    this.playedSamples = Math.max(this.playedSamples, Number(match[3]));
  }

  receiveDtmf(digit: string): void {
    if (!this.isEnded) this.streams.emit({ type: 'dtmf', digit });
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
    this.sendMessage({ event: 'clear', streamSid: this.streamSid });
  }

  /** Ms of agent audio the provider has confirmed played (by echoing our marks) since the last `clear()`. */
  playedMs(): number {
    return (this.playedSamples * 1000) / mediaStream.sampleRate;
  }

  /** Ms of agent audio sent but not yet confirmed played. */
  pendingMs(): number {
    return ((this.sentSamples - this.playedSamples) * 1000) / mediaStream.sampleRate;
  }

  hangup(reason?: string): void {
    if (this.isEnded) return;
    this.end(reason ?? 'agent hung up');
    this.socket.close(1000, 'call ended');
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
    const codes = encodeMuLaw(samples);
    for (let offset = 0; offset < codes.length; offset += mediaStream.outboundChunkBytes) {
      const chunk = codes.subarray(offset, offset + mediaStream.outboundChunkBytes);
      this.sendMessage({ event: 'media', streamSid: this.streamSid, media: { payload: Buffer.from(chunk).toString('base64') } });
    }
    this.sentSamples += samples.length;
    this.markSeq++;
    this.sendMessage({ event: 'mark', streamSid: this.streamSid, mark: { name: `g${this.generation}-${this.markSeq}-${this.sentSamples}` } });
  }

  private sendMessage(message: OutboundMessage): void {
    if (this.socket.readyState === this.socket.OPEN) this.socket.send(JSON.stringify(message));
  }
}
