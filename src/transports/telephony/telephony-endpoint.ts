import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { RawData, WebSocket } from 'ws';
import { AgentBusyError, callTraceparent, isCallMode, type StartCall } from '../call-session.js';
import { sendBusyLine } from './busy-line.js';
import { WebSocketCalls } from '../websocket-calls.js';
import { mediaStream, parseInboundMessage, type StartMessage } from './media-stream-messages.js';
import { TelephonyTransport } from './telephony-transport.js';

export interface TelephonyEndpointOptions {
  /** URL path of the media-stream WebSocket. */
  path: string;
  /** A stream that has not sent `start` within this time is closed. */
  startTimeoutMs: number;
  startCall: StartCall<TelephonyTransport>;
  /** Where failures are reported: bad messages from the provider and agents that failed to start. */
  onError?(error: unknown, streamSid: string | undefined): void;
}

export const telephonyEndpointDefaults = { path: '/telephony', startTimeoutMs: 10_000 };

/** A media-stream message that could not be used; the provider cannot be told, so it is reported and dropped. */
export class MediaStreamMessageError extends Error {
  override readonly name = 'MediaStreamMessageError';
}

/**
 * Accepts phone calls as Twilio-style media streams on one WebSocket path. The call's trace context comes from
 * the `traceparent` custom parameter; `agent` and `mode` custom parameters pick the agent and turn-taking mode.
 */
export class TelephonyEndpoint {
  readonly path: string;
  private readonly options: TelephonyEndpointOptions;
  private readonly calls: WebSocketCalls<TelephonyTransport>;

  constructor(options: Partial<TelephonyEndpointOptions> & Pick<TelephonyEndpointOptions, 'startCall'>) {
    this.options = { ...telephonyEndpointDefaults, ...options };
    this.path = this.options.path;
    this.calls = new WebSocketCalls({ path: this.path, maxPayloadBytes: mediaStream.maxMessageBytes, accept: (ws) => this.accept(ws) });
  }

  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    return this.calls.handleUpgrade(request, socket, head);
  }

  activeCalls(): number {
    return this.calls.activeCalls();
  }

  openSockets(): number {
    return this.calls.openSockets();
  }

  close(): void {
    this.calls.close();
  }

  private accept(ws: WebSocket): void {
    let transport: TelephonyTransport | undefined;
    const startTimer = setTimeout(() => ws.close(1008, 'no start event'), this.options.startTimeoutMs);
    const key = this.calls.adopt(ws, () => clearTimeout(startTimer));

    const start = async (message: StartMessage): Promise<void> => {
      clearTimeout(startTimer);
      const parameters = message.start.customParameters ?? {};
      const streamSid = message.start.streamSid ?? message.streamSid ?? key;
      const format = message.start.mediaFormat;
      if (format && (!/mulaw|pcmu/i.test(format.encoding) || format.sampleRate !== mediaStream.sampleRate)) {
        this.report(new MediaStreamMessageError(`unsupported media format ${format.encoding}/${format.sampleRate}; expected audio/x-mulaw 8000`), streamSid);
        ws.close(1003, 'unsupported media format');
        return;
      }
      const traceparent = callTraceparent(parameters['traceparent']);
      transport = new TelephonyTransport(ws, {
        streamSid,
        callSid: message.start.callSid,
        customParameters: parameters,
        traceContext: { traceparent, tracestate: parameters['tracestate'] },
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
          await sendBusyLine(ws, streamSid);
          return;
        }
        this.report(error, streamSid);
        ws.close(1011, 'call could not start');
      }
    };

    ws.on('message', (data: RawData, isBinary: boolean) => {
      const message = isBinary ? null : parseInboundMessage(rawText(data));
      if (!message) {
        this.report(new MediaStreamMessageError('dropped a frame that is not a known media-stream event'), transport?.streamSid);
        return;
      }
      switch (message.event) {
        case 'start':
          if (!transport) void start(message);
          return;
        case 'media':
          transport?.receiveMedia(message.media.payload);
          return;
        case 'mark':
          transport?.receiveMark(message.mark.name);
          return;
        case 'dtmf':
          transport?.receiveDtmf(message.dtmf.digit);
          return;
        case 'stop':
          transport?.end('stream stopped');
          ws.close(1000, 'stream stopped');
          return;
        case 'connected':
          return;
      }
    });
    ws.on('error', (error) => this.report(error, transport?.streamSid));
  }

  private report(error: unknown, streamSid: string | undefined): void {
    this.options.onError?.(error, streamSid);
  }
}

function rawText(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString();
  if (Array.isArray(data)) return Buffer.concat(data).toString();
  return Buffer.from(data).toString();
}
