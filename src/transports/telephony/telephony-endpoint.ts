import type { Duplex } from 'node:stream';
import type { RawData, WebSocket } from 'ws';
import { AgentBusyError, callTraceparent, isCallMode, type StartCall } from '../call-request.js';
import { sendBusyLine } from './busy-line.js';
import { WebSocketCallEndpoint, WebSocketCalls } from '../websocket-calls.js';
import { twilioCarrier, type Carrier, type CarrierEvent } from './carriers/index.js';
import { mediaStream } from './media-stream-messages.js';
import { UnsupportedMediaFormatError } from './media-format.js';
import { safeEqual, type StreamTokens } from './stream-tokens.js';
import { TelephonyTransport } from './telephony-transport.js';
import type { Clock } from '../../pipeline/clock.js';

export interface TelephonyEndpointOptions {
  /** URL path of the media-stream WebSocket. */
  path: string;
  /** The carrier whose protocol this path speaks. */
  carrier: Carrier;
  /** A stream that has not sent `start` within this time is closed. */
  startTimeoutMs: number;
  /** When set, a stream must carry a valid `token` (custom parameter or URL query) issued by an answer webhook. */
  tokens?: StreamTokens;
  /** When set, a stream must carry this `key` (custom parameter, header or URL query): for carriers answered outside Shoal. */
  accessKey?: string;
  startCall: StartCall<TelephonyTransport>;
  /** Where failures are reported: bad messages from the carrier, refused streams, agents that failed to start. */
  onError?(error: unknown, streamSid: string | undefined): void;
  /** Times each call's frames and timers (`TelephonyCallInfo.clock`); the wall clock when absent. */
  clock?: Clock;
}

export const telephonyEndpointDefaults = { path: '/telephony', carrier: twilioCarrier, startTimeoutMs: 10_000 };

/** A media-stream message that could not be used; the carrier cannot be told, so it is reported and dropped. */
export class MediaStreamMessageError extends Error {
  override readonly name = 'MediaStreamMessageError';
}

/** A stream without a valid token (when tokens are required): closed with 1008 before any agent starts. */
export class StreamRefusedError extends Error {
  override readonly name = 'StreamRefusedError';
}

/**
 * Accepts phone calls as one carrier's media streams on one WebSocket path. What the application passed
 * along (custom parameters, headers, the URL's query) gives the call's `traceparent`, `agent`, `mode` and `token`.
 */
export class TelephonyEndpoint extends WebSocketCallEndpoint<TelephonyTransport> {
  readonly path: string;
  readonly carrier: Carrier;
  private readonly options: TelephonyEndpointOptions;
  protected readonly calls: WebSocketCalls<TelephonyTransport>;

  constructor(options: Partial<TelephonyEndpointOptions> & Pick<TelephonyEndpointOptions, 'startCall'>) {
    super();
    this.options = { ...telephonyEndpointDefaults, ...options };
    this.path = this.options.path;
    this.carrier = this.options.carrier;
    this.calls = new WebSocketCalls({ path: this.path, maxPayloadBytes: mediaStream.maxMessageBytes, accept: (ws, query, network) => this.accept(ws, query, network) });
  }

  private accept(ws: WebSocket, query: URLSearchParams, network: Duplex): void {
    let transport: TelephonyTransport | undefined;
    let starting = false;
    const startTimer = setTimeout(() => ws.close(1008, 'no start event'), this.options.startTimeoutMs);
    const key = this.calls.adopt(ws, () => clearTimeout(startTimer));

    const start = async (event: Extract<CarrierEvent, { type: 'start' }>): Promise<void> => {
      clearTimeout(startTimer);
      const parameters = { ...Object.fromEntries(query), ...event.parameters };
      const streamSid = event.streamId ?? key;
      const refusal = this.refusal(parameters, event.callId);
      if (refusal) {
        this.report(new StreamRefusedError(`${this.carrier.name} stream refused: ${refusal}`), streamSid);
        ws.close(1008, 'stream not authorised');
        return;
      }
      const traceparent = callTraceparent(parameters['traceparent']);
      transport = new TelephonyTransport(ws, {
        streamSid,
        callSid: event.callId,
        customParameters: parameters,
        traceContext: { traceparent, tracestate: parameters['tracestate'] },
        carrier: this.carrier,
        format: event.format,
        network,
        ...(this.options.clock ? { clock: this.options.clock } : {}),
      });
      this.calls.track(key, transport);
      const mode = parameters['mode'];
      try {
        const session = await this.options.startCall(transport, {
          traceparent,
          tracestate: parameters['tracestate'],
          agent: parameters['agent'],
          mode: isCallMode(mode) ? mode : undefined,
        });
        this.calls.attachSession(key, session);
      } catch (error) {
        if (error instanceof AgentBusyError) {
          this.calls.end(key, 'agent busy');
          await sendBusyLine(ws, streamSid, {}, this.carrier, event.format);
          return;
        }
        this.report(error, streamSid);
        ws.close(1011, 'call could not start');
      }
    };

    ws.on('message', (data: RawData, isBinary: boolean) => {
      let event: CarrierEvent | null;
      try {
        event = this.carrier.parse(rawBuffer(data), isBinary);
      } catch (error) {
        // Only this stream ends: thrown from here, the error would take down the process and every call in it.
        clearTimeout(startTimer);
        this.report(error, transport?.streamSid);
        if (error instanceof UnsupportedMediaFormatError) ws.close(1003, 'unsupported media format');
        else ws.close(1011, 'media-stream message could not be read');
        return;
      }
      if (!event) {
        this.report(new MediaStreamMessageError(`dropped a frame that is not a known ${this.carrier.name} media-stream event`), transport?.streamSid);
        return;
      }
      switch (event.type) {
        case 'start':
          if (!starting) {
            starting = true;
            void start(event);
          }
          return;
        case 'media':
          transport?.receiveMedia(event.payload);
          return;
        case 'mark':
          transport?.receiveMark(event.name);
          return;
        case 'dtmf':
          transport?.receiveDtmf(event.digit);
          return;
        case 'stop':
          transport?.end('stream stopped');
          ws.close(1000, 'stream stopped');
          return;
        case 'other':
          return;
      }
    });
    ws.on('error', (error) => this.report(error, transport?.streamSid));
  }

  /** Why a stream may not start, or undefined when it may. */
  private refusal(parameters: Record<string, string>, callId: string | undefined): string | undefined {
    const { tokens, accessKey } = this.options;
    if (tokens && !tokens.verify(parameters['token'], callId)) return 'no valid stream token (answer the call through Shoal\'s webhook, which issues one)';
    if (accessKey && !safeEqual(parameters['key'] ?? '', accessKey)) return 'no valid access key (add ?key=… to the stream URL)';
    return undefined;
  }

  private report(error: unknown, streamSid: string | undefined): void {
    this.options.onError?.(error, streamSid);
  }
}

function rawBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}
