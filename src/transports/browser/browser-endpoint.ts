import type { RawData, WebSocket } from 'ws';
import { AgentBusyError, CallRejectedError, callTraceparent, isCallMode, type CallRequest, type StartCall } from '../call-request.js';
import { WebSocketCallEndpoint, WebSocketCalls } from '../websocket-calls.js';
import { BrowserTransport } from './browser-transport.js';
import { browserProtocol, parseClientMessage, type CallMode, type ServerMessage } from './protocol.js';
import type { PacedPlayoutOptions } from './paced-playout.js';
import type { Clock } from '../../pipeline/clock.js';

export interface BrowserEndpointOptions {
  /** URL path of the WebSocket. */
  path: string;
  /** A socket that has not said hello (or sent audio) within this time is closed. */
  helloTimeoutMs: number;
  playout: Partial<Omit<PacedPlayoutOptions, 'sampleRate'>>;
  startCall: StartCall<BrowserTransport>;
  /** Where failures that are not the page's fault are reported. */
  onError?(error: unknown, callId: string): void;
  /** Times each call's frames and paces its playout (`BrowserCallInfo.clock`); the wall clock when absent. */
  clock?: Clock;
}

export const browserEndpointDefaults = { path: '/ws', helloTimeoutMs: 10_000, playout: {} };

/** Accepts browser calls on one WebSocket path of an HTTP server and keeps track of the live ones. */
export class BrowserEndpoint extends WebSocketCallEndpoint<BrowserTransport> {
  readonly path: string;
  private readonly options: BrowserEndpointOptions;
  protected readonly calls: WebSocketCalls<BrowserTransport>;

  constructor(options: Partial<BrowserEndpointOptions> & Pick<BrowserEndpointOptions, 'startCall'>) {
    super();
    this.options = { ...browserEndpointDefaults, ...options };
    this.path = this.options.path;
    this.calls = new WebSocketCalls({ path: this.path, maxPayloadBytes: browserProtocol.maxFrameBytes, accept: (ws, query) => this.accept(ws, query) });
  }

  private accept(ws: WebSocket, query: URLSearchParams): void {
    let state: 'waiting' | 'starting' | 'live' | 'closed' = 'waiting';
    let transport: BrowserTransport | undefined;
    const reply = (message: ServerMessage): void => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
    };
    const helloTimer = setTimeout(() => {
      reply({ type: 'error', code: 'hello_timeout', message: `send {"type":"hello"} within ${this.options.helloTimeoutMs} ms` });
      ws.close(1008, 'no hello');
    }, this.options.helloTimeoutMs);
    const callId = this.calls.adopt(ws, () => {
      clearTimeout(helloTimer);
      state = 'closed';
    });

    const start = async (request: CallRequest): Promise<void> => {
      state = 'starting';
      clearTimeout(helloTimer);
      const clock = this.options.clock ? { clock: this.options.clock } : {};
      transport = new BrowserTransport(ws, { callId, traceContext: { traceparent: request.traceparent, tracestate: request.tracestate }, ...clock }, this.options.playout);
      this.calls.track(callId, transport);
      try {
        const session = await this.options.startCall(transport, request);
        if (ws.readyState !== ws.OPEN) {
          session.stop();
          return;
        }
        this.calls.attachSession(callId, session);
        state = 'live';
        reply({ type: 'ready', callId, sampleRate: browserProtocol.sampleRate, traceparent: request.traceparent, mode: session.mode, agent: session.agent });
      } catch (error) {
        if (error instanceof AgentBusyError) {
          this.calls.end(callId, 'agent busy');
          reply({ type: 'error', code: 'agent_busy', message: error.message, retryAfterMs: error.retryAfterMs });
          ws.close(1013, 'agent busy');
          return;
        }
        const rejected = error instanceof CallRejectedError ? error : undefined;
        if (!rejected) this.options.onError?.(error, callId);
        const code = rejected ? (rejected.code === 'unknown_agent' ? 'unknown_agent' : 'bad_message') : 'agent_failed';
        this.calls.end(callId, 'call could not start');
        reply({ type: 'error', code, message: error instanceof Error ? error.message : String(error) });
        ws.close(1011, 'call could not start');
      }
    };

    ws.on('message', (data: RawData, isBinary: boolean) => {
      if (state === 'closed') return;
      if (isBinary) {
        const bytes = toBytes(data);
        if (bytes.length === 0 || bytes.length % 2 !== 0) {
          reply({ type: 'error', code: 'bad_frame', message: `audio frames hold whole 16-bit samples; got ${bytes.length} bytes` });
          return;
        }
        if (state === 'live') transport!.receiveAudio(bytes);
        else reply({ type: 'error', code: 'not_ready', message: 'audio before "ready" is dropped; send {"type":"hello"} and wait for "ready"' });
        return;
      }
      const parsed = parseClientMessage(toBytes(data).toString());
      if (!parsed.ok) {
        reply({ type: 'error', code: parsed.code, message: parsed.message });
        return;
      }
      const message = parsed.message;
      if (message.type === 'hello') {
        if (state !== 'waiting') return reply({ type: 'error', code: 'bad_message', message: 'hello was already received' });
        if (message.sampleRate !== undefined && message.sampleRate !== browserProtocol.sampleRate) {
          reply({ type: 'error', code: 'unsupported_rate', message: `audio must be ${browserProtocol.sampleRate} Hz PCM16; resample in the page` });
          ws.close(1008, 'unsupported sample rate');
          return;
        }
        void start(callRequest(message, query));
        return;
      }
      if (state === 'live') transport!.receiveControl(message);
      else reply({ type: 'error', code: 'not_ready', message: `"${message.type}" before "ready" is ignored` });
    });

    // After a protocol error (e.g. 1009 for an oversized frame) ws closes the socket itself; 'close' frees the call.
    ws.on('error', (error) => this.options.onError?.(error, callId));
  }
}

function callRequest(hello: { traceparent?: string; tracestate?: string; mode?: CallMode; agent?: string }, query: URLSearchParams): CallRequest {
  const queryMode = query.get('mode');
  return {
    traceparent: callTraceparent(hello.traceparent, query.get('traceparent')),
    tracestate: hello.tracestate ?? query.get('tracestate') ?? undefined,
    mode: hello.mode ?? (isCallMode(queryMode) ? queryMode : undefined),
    agent: hello.agent ?? query.get('agent') ?? undefined,
  };
}

function toBytes(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}
