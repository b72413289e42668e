import { WebSocket } from 'ws';
import { mediaStream, type InboundMessage } from './media-stream-messages.js';

export interface MediaStreamCallerOptions {
  streamSid: string;
  /** Sent as the `start` event's customParameters (traceparent, agent, mode). */
  customParameters: Record<string, string>;
}

/** What the caller has heard from the agent. */
export interface HeardAudio {
  /** performance.now() of each media message received. */
  arrivals: number[];
  /** Mu-law bytes received. */
  bytes: number;
  /** The media payloads received, in order. */
  payloads: Buffer[];
}

/**
 * Plays the carrier's side of a Twilio-style media stream, as a phone provider would: `connected`, `start`,
 * 20 ms mu-law `media` frames paced in real time, the echo of every `mark` the agent sends, and `stop`.
 * For tests and load benchmarks of `shoal agent`'s telephony endpoint.
 */
export class MediaStreamCaller {
  readonly heard: HeardAudio = { arrivals: [], bytes: 0, payloads: [] };
  readonly marks: string[] = [];
  /** Resolves with the close code and reason once the socket closes. */
  readonly closed: Promise<{ code: number; reason: string }>;
  private readonly options: MediaStreamCallerOptions;

  private constructor(
    private readonly ws: WebSocket,
    options: Partial<MediaStreamCallerOptions>,
  ) {
    this.options = { streamSid: `MZ${Math.random().toString(16).slice(2, 18)}`, customParameters: {}, ...options };
    this.closed = new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: String(reason) })));
    ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as InboundMessage | { event: 'clear' };
      if (message.event === 'media') {
        this.heard.arrivals.push(performance.now());
        const payload = Buffer.from(message.media.payload, 'base64');
        this.heard.bytes += payload.length;
        this.heard.payloads.push(payload);
      } else if (message.event === 'mark') {
        this.marks.push(message.mark.name);
        this.send({ event: 'mark', streamSid: this.options.streamSid, mark: { name: message.mark.name } });
      }
    });
  }

  /** Opens the stream at `url` (e.g. ws://127.0.0.1:3000/telephony) and sends `connected` and `start`. */
  static async connect(url: string, options: Partial<MediaStreamCallerOptions> = {}): Promise<MediaStreamCaller> {
    const ws = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const caller = new MediaStreamCaller(ws, options);
    const { streamSid, customParameters } = caller.options;
    caller.send({ event: 'connected', protocol: 'Call', version: '1.0.0' });
    caller.send({
      event: 'start',
      streamSid,
      start: { streamSid, callSid: `CA${streamSid.slice(2)}`, customParameters, mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: mediaStream.sampleRate, channels: 1 } },
    });
    return caller;
  }

  get open(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  /** Sends `mulaw` as 20 ms media frames at real-time pace (stops early if the socket closes). */
  async play(mulaw: Uint8Array): Promise<void> {
    const frame = mediaStream.outboundChunkBytes;
    const started = performance.now();
    for (let offset = 0, index = 0; offset < mulaw.length && this.open; offset += frame, index++) {
      this.send({ event: 'media', streamSid: this.options.streamSid, media: { track: 'inbound', payload: Buffer.from(mulaw.subarray(offset, offset + frame)).toString('base64') } });
      const due = started + ((index + 1) * frame * 1000) / mediaStream.sampleRate;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
    }
  }

  /** Hangs up: `stop`, then waits for the socket to close. */
  async hangUp(): Promise<void> {
    this.send({ event: 'stop', streamSid: this.options.streamSid });
    if (this.open) this.ws.close(1000, 'caller hung up');
    await this.closed;
  }

  private send(message: object): void {
    if (this.open) this.ws.send(JSON.stringify(message));
  }
}
