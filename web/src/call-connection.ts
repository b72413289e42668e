import type { ServerMessage } from '../../src/transports/browser/protocol.js';

export type CallMode = 'low-latency' | 'balanced';

export interface CallConnectionEvents {
  onMessage(message: ServerMessage): void;
  onAudio(samples: ArrayBuffer): void;
  onClose(code: number, reason: string): void;
}

/** The page's side of the browser protocol (docs/browser-protocol.md). */
export class CallConnection {
  private constructor(private readonly socket: WebSocket) {}

  /** Opens the socket, says hello and resolves once the server is `ready`. */
  static open(request: { agent: string; mode: CallMode; traceparent: string }, events: CallConnectionEvents): Promise<{ connection: CallConnection; ready: Extract<ServerMessage, { type: 'ready' }> }> {
    const url = new URL('/ws', location.href);
    url.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
    url.searchParams.set('traceparent', request.traceparent);
    const token = new URLSearchParams(location.search).get('access_token');
    if (token) url.searchParams.set('access_token', token);
    const socket = new WebSocket(url);
    socket.binaryType = 'arraybuffer';
    return new Promise((resolve, reject) => {
      let ready = false;
      socket.onopen = () => socket.send(JSON.stringify({ type: 'hello', sampleRate: 16000, ...request }));
      socket.onmessage = (event: MessageEvent<ArrayBuffer | string>) => {
        if (typeof event.data !== 'string') {
          events.onAudio(event.data);
          return;
        }
        const message = JSON.parse(event.data) as ServerMessage;
        if (!ready && message.type === 'ready') {
          ready = true;
          resolve({ connection: new CallConnection(socket), ready: message });
        } else if (!ready && message.type === 'error') {
          reject(new Error(message.message));
        }
        events.onMessage(message);
      };
      socket.onerror = () => {
        if (!ready) reject(new Error(`could not connect to ${url.origin}`));
      };
      socket.onclose = (event) => {
        if (!ready) reject(new Error(event.reason || `connection closed (${event.code})`));
        events.onClose(event.code, event.reason);
      };
    });
  }

  sendAudio(frame: ArrayBuffer): void {
    if (this.socket.readyState === WebSocket.OPEN) this.socket.send(frame);
  }

  hangup(): void {
    if (this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify({ type: 'hangup', reason: 'caller pressed stop' }));
    this.socket.close(1000, 'caller hung up');
  }
}

/** A fresh sampled W3C traceparent for a call started on this page. */
export function newTraceparent(): string {
  const hex = (bytes: number) => Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, '0')).join('');
  return `00-${hex(16)}-${hex(8)}-01`;
}
