import type { WebSocket } from 'ws';
import { bytesToInt16, int16ToBytes } from '../audio/index.js';
import type { Clock } from '../pipeline/index.js';
import { BrowserTransport } from '../transports/browser/browser-transport.js';
import { browserProtocol, clientMessageSchema } from '../transports/browser/protocol.js';
import { callTraceparent } from '../transports/call-request.js';
import { HeardTrack } from './heard-audio.js';
import type { Line } from './line.js';

/**
 * The page's side of a browser call, in process and on a virtual clock: the caller's audio goes to the real
 * `BrowserTransport` as the protocol's binary PCM16 frames, keys and hang-up as its JSON control messages
 * (checked against the protocol's schema); the agent's binary frames are played as they arrive (the page's
 * jitter buffer), its `clear` drops what is queued.
 */
export class BrowserLine implements Line {
  readonly transport: BrowserTransport;
  readonly sampleRate = browserProtocol.sampleRate;
  readonly heard = new HeardTrack(browserProtocol.sampleRate);
  readonly sent: Record<string, number> = {};
  closedAtMs: number | undefined;

  constructor(
    private readonly clock: Clock,
    parameters: Record<string, string>,
  ) {
    const socket = {
      OPEN: 1,
      readyState: 1,
      send: (data: string | Uint8Array, options?: { binary?: boolean }) => this.fromAgent(data, options?.binary === true),
      close: () => {
        if (socket.readyState !== 1) return;
        socket.readyState = 3;
        this.closedAtMs = this.clock.now();
      },
    };
    this.transport = new BrowserTransport(socket as unknown as WebSocket, {
      callId: 'scenario',
      traceContext: { traceparent: callTraceparent(parameters['traceparent']) },
      clock,
    });
  }

  get isOpen(): boolean {
    return this.closedAtMs === undefined && !this.transport.isEnded;
  }

  deliver(samples: Int16Array): void {
    if (this.isOpen) this.transport.receiveAudio(int16ToBytes(samples));
  }

  pressKey(digit: string): void {
    this.control({ type: 'dtmf', digit });
  }

  hangUp(): void {
    this.control({ type: 'hangup', reason: 'caller hung up' });
  }

  playUntil(): void {
    // The page needs to tell the agent nothing of what it played: the transport paces its own playout.
  }

  playoutSent(): Promise<void> {
    return this.transport.playoutSent();
  }

  private control(message: object): void {
    if (!this.isOpen) return;
    this.transport.receiveControl(clientMessageSchema.parse(message));
  }

  private fromAgent(data: string | Uint8Array, binary: boolean): void {
    const kind = binary ? 'audio' : (JSON.parse(String(data)) as { type: string }).type;
    this.sent[kind] = (this.sent[kind] ?? 0) + 1;
    if (binary) this.heard.place(bytesToInt16(data as Uint8Array), this.clock.now());
    else if (kind === 'clear') this.heard.cutAt(this.clock.now());
  }
}
