import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { callTraceparent, isCallMode, type CallSession, type StartCall } from '../call-session.js';
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
  private readonly server: WebSocketServer;
  private readonly calls = new Map<string, { transport: TelephonyTransport; session?: CallSession }>();
  private readonly sockets = new Set<WebSocket>();

  constructor(options: Partial<TelephonyEndpointOptions> & Pick<TelephonyEndpointOptions, 'startCall'>) {
    this.options = { ...telephonyEndpointDefaults, ...options };
    this.path = this.options.path;
    this.server = new WebSocketServer({ noServer: true, maxPayload: mediaStream.maxMessageBytes });
  }

  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname !== this.path) return false;
    this.server.handleUpgrade(request, socket, head, (ws) => this.accept(ws));
    return true;
  }

  activeCalls(): number {
    return this.calls.size;
  }

  openSockets(): number {
    return this.sockets.size;
  }

  close(): void {
    for (const ws of this.sockets) ws.terminate();
    this.server.close();
  }

  private accept(ws: WebSocket): void {
    this.sockets.add(ws);
    const key = randomUUID();
    let transport: TelephonyTransport | undefined;
    const startTimer = setTimeout(() => ws.close(1008, 'no start event'), this.options.startTimeoutMs);

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
      this.calls.set(key, { transport });
      const mode = parameters['mode'];
      try {
        const session = await this.options.startCall(transport, {
          traceparent,
          tracestate: parameters['tracestate'],
          agent: parameters['agent'],
          mode: isCallMode(mode) ? mode : undefined,
        });
        if (!this.calls.has(key)) return session.stop();
        this.calls.set(key, { transport, session });
      } catch (error) {
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
    ws.on('close', () => {
      clearTimeout(startTimer);
      this.sockets.delete(ws);
      const call = this.calls.get(key);
      this.calls.delete(key);
      call?.transport.end('socket closed');
      call?.session?.stop();
    });
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
