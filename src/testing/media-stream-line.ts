import type { WebSocket } from 'ws';
import type { Clock } from '../pipeline/index.js';
import { callTraceparent } from '../transports/call-request.js';
import { HeardTrack } from './heard-audio.js';
import type { Line } from './line.js';
import { decodeMedia, encodeMedia, telnyxCarrier, twilioCarrier, TelephonyTransport, type Carrier, type MediaFormat } from '../transports/telephony/index.js';

interface QueuedMark {
  name: string;
  atMs: number;
}

/** How a line's carrier frames its messages: Twilio for `phone`, Telnyx (L16 16 kHz RTP payloads) for `wideband`. */
interface CarrierDialect {
  carrier: Carrier;
  start(streamSid: string, parameters: Record<string, string>): object;
  media(streamSid: string, payload: string): object;
  mark(streamSid: string, name: string): object;
  dtmf(streamSid: string, digit: string): object;
  stop(streamSid: string): object;
}

const twilio: CarrierDialect = {
  carrier: twilioCarrier,
  start: (streamSid, customParameters) => ({
    event: 'start',
    streamSid,
    start: { streamSid, callSid: `CA${streamSid.slice(2)}`, customParameters, mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 } },
  }),
  media: (streamSid, payload) => ({ event: 'media', streamSid, media: { track: 'inbound', payload } }),
  mark: (streamSid, name) => ({ event: 'mark', streamSid, mark: { name } }),
  dtmf: (streamSid, digit) => ({ event: 'dtmf', streamSid, dtmf: { track: 'inbound_track', digit } }),
  stop: (streamSid) => ({ event: 'stop', streamSid }),
};

const telnyx: CarrierDialect = {
  carrier: telnyxCarrier,
  start: (streamSid, custom_parameters) => ({
    event: 'start',
    stream_id: streamSid,
    start: { call_control_id: `v3:${streamSid}`, custom_parameters, media_format: { encoding: 'L16', sample_rate: 16000, channels: 1 } },
  }),
  media: (_streamSid, payload) => ({ event: 'media', media: { track: 'inbound', payload } }),
  mark: (_streamSid, name) => ({ event: 'mark', mark: { name } }),
  dtmf: (_streamSid, digit) => ({ event: 'dtmf', dtmf: { digit } }),
  stop: () => ({ event: 'stop' }),
};

export const dialects = { phone: twilio, wideband: telnyx } as const;

/**
 * The carrier's side of one media-stream call, in process and on a virtual clock: it sends the caller's audio as
 * the carrier's JSON messages (coded in the stream's format), buffers and plays what the agent sends, echoes
 * its marks once played, drops its buffer on `clear`, and records what the caller heard. The agent side is the
 * real `TelephonyTransport`, reading every message through the carrier's own parser.
 */
export class MediaStreamLine implements Line {
  readonly transport: TelephonyTransport;
  readonly format: MediaFormat;
  readonly heard: HeardTrack;
  /** Messages the agent sent, by event (`media`, `mark`, `clear`). */
  readonly sent: Record<string, number> = {};
  /** When the agent closed the stream (it hung up), on the call's clock. */
  closedAtMs: number | undefined;
  private readonly streamSid = `MZ${'0'.repeat(24)}${Math.floor(Math.random() * 1e8).toString(16).padStart(8, '0')}`;
  private marks: QueuedMark[] = [];

  constructor(
    private readonly dialect: CarrierDialect,
    private readonly clock: Clock,
    parameters: Record<string, string>,
  ) {
    const socket = {
      OPEN: 1,
      readyState: 1,
      send: (data: string | Buffer) => this.fromAgent(String(data)),
      close: () => {
        if (socket.readyState !== 1) return;
        socket.readyState = 3;
        this.closedAtMs = this.clock.now();
      },
    };
    const start = this.parse(dialect.start(this.streamSid, parameters));
    if (start?.type !== 'start') throw new Error(`${dialect.carrier.name}: the start message did not parse`);
    this.format = start.format;
    this.heard = new HeardTrack(start.format.sampleRate);
    this.transport = new TelephonyTransport(socket as unknown as WebSocket, {
      streamSid: start.streamId ?? this.streamSid,
      callSid: start.callId,
      customParameters: start.parameters,
      traceContext: { traceparent: callTraceparent(start.parameters['traceparent']), tracestate: start.parameters['tracestate'] },
      carrier: dialect.carrier,
      format: start.format,
      clock,
    });
  }

  get sampleRate(): number {
    return this.format.sampleRate;
  }

  get isOpen(): boolean {
    return this.closedAtMs === undefined && !this.transport.isEnded;
  }

  playoutSent(): Promise<void> {
    return this.transport.playoutSent();
  }

  /** One frame of the caller's audio reaches the agent, coded as the line codes it. */
  deliver(samples: Int16Array): void {
    this.toAgent(this.dialect.media(this.streamSid, Buffer.from(encodeMedia(this.format, samples)).toString('base64')));
  }

  pressKey(digit: string): void {
    this.toAgent(this.dialect.dtmf(this.streamSid, digit));
  }

  /** The caller hangs up: the carrier stops the stream. */
  hangUp(): void {
    this.toAgent(this.dialect.stop(this.streamSid));
  }

  /** The carrier has played the agent's audio up to `nowMs`: it echoes the marks placed before that. */
  playUntil(nowMs: number): void {
    const due = this.marks.filter((mark) => mark.atMs <= nowMs);
    this.marks = this.marks.filter((mark) => mark.atMs > nowMs);
    for (const mark of due) this.toAgent(this.dialect.mark(this.streamSid, mark.name));
  }

  private parse(message: object) {
    return this.dialect.carrier.parse(Buffer.from(JSON.stringify(message)), false);
  }

  /** A message from the carrier to the agent, read as the telephony endpoint reads it. */
  private toAgent(message: object): void {
    if (!this.isOpen) return;
    const event = this.parse(message);
    switch (event?.type) {
      case 'media':
        return this.transport.receiveMedia(event.payload);
      case 'mark':
        return this.transport.receiveMark(event.name);
      case 'dtmf':
        return this.transport.receiveDtmf(event.digit);
      case 'stop':
        return this.transport.end('stream stopped');
      default:
        throw new Error(`${this.dialect.carrier.name}: the carrier double sent a message its parser does not read: ${JSON.stringify(message)}`);
    }
  }

  private fromAgent(text: string): void {
    const message = JSON.parse(text) as { event: string; media?: { payload: string }; mark?: { name: string } };
    this.sent[message.event] = (this.sent[message.event] ?? 0) + 1;
    const nowMs = this.clock.now();
    if (message.event === 'media' && message.media) {
      this.heard.place(decodeMedia(this.format, Buffer.from(message.media.payload, 'base64')), nowMs);
    } else if (message.event === 'mark' && message.mark) {
      this.marks.push({ name: message.mark.name, atMs: Math.max(nowMs, this.heard.endMs) });
    } else if (message.event === 'clear') {
      this.heard.cutAt(nowMs);
      // Like Twilio, a clear sends back the marks of the audio it dropped.
      const dropped = this.marks;
      this.marks = [];
      for (const mark of dropped) this.toAgent(this.dialect.mark(this.streamSid, mark.name));
    }
  }
}
