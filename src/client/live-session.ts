import { readCharge } from './charge.js';
import type WebSocket from 'ws';
import { ConnectionError, InvalidRequestError, LiveSessionError, SpeechClientError } from './errors.js';
import { EventQueue } from './event-queue.js';
import { decodeLiveEvent, encodeLiveEvent, frameBytes, keepAlive, liveUrl, openLiveSocket, type OpenedLiveSocket, type ServerLiveEvent } from './live-socket.js';
import { describeServerError, newUtterance, timestampFields, utteranceResult, type LiveConnection, type LiveEvent, type Utterance, type UtteranceResult } from './live-utterance.js';

const FATAL_STATUSES = new Set([400, 401, 402, 403, 404, 422]);

/**
 * One live TTS WebSocket carrying many utterances. Text is sent as it comes; `flush()` ends an utterance.
 * Only one flushed utterance is in flight at a time: the next one's text goes out once the previous one's
 * audio is complete: at the server's `utterance_end` with `utteranceEndEvents` (shoal serve), else after an
 * audio idle gap of `utteranceIdleMs` (or at the server's `finish`). This keeps audio attributable to its
 * utterance and lets a reconnect resend exactly the utterances whose audio has not completed.
 */
export class LiveTtsSession implements AsyncIterable<LiveEvent> {
  private readonly events = new EventQueue<LiveEvent>();
  private readonly utterances: Utterance[] = [];
  private socket: WebSocket | null = null;
  private generation = 0;
  private started = false;
  private finishedOnSocket = false;
  private connecting: Promise<void> | null = null;
  private state: 'open' | 'closed' | 'failed' = 'open';
  private failure: unknown;
  private nextId = 1;
  private stopRequested = false;
  private stopSent = false;
  private stopWaiters: { resolve(): void; reject(error: unknown): void }[] = [];
  private idleTimer: NodeJS.Timeout | undefined;
  private stopKeepalive: () => void = () => undefined;
  private reconnects = 0;
  /** The current socket's server sends `utterance_end` when a flush asks for it. */
  private serverEndsUtterances = false;

  private constructor(private readonly connection: LiveConnection) {}

  /** Opens the socket; a refused upgrade rejects with its typed error (AuthenticationError, RateLimitError, ...). */
  static async open(connection: LiveConnection, signal?: AbortSignal): Promise<LiveTtsSession> {
    const session = new LiveTtsSession(connection);
    try {
      session.attach(await session.openSocket(signal));
    } catch (error) {
      connection.trace.end(error);
      throw error;
    }
    signal?.addEventListener('abort', () => session.close(), { once: true });
    return session;
  }

  /** Audio and boundary events, in order; ends after `close()`, throws when the session fails. */
  [Symbol.asyncIterator](): AsyncIterator<LiveEvent> {
    return this.events[Symbol.asyncIterator]();
  }

  /** Appends text to the current utterance. */
  send(text: string): void {
    this.assertUsable();
    if (!text) return;
    let tail = this.utterances.at(-1);
    if (!tail || tail.flushed) tail = newUtterance(this.nextId++, this.utterances);
    tail.text += text;
    this.pump();
  }

  /** Ends the current utterance; resolves (never rejects) when its audio is complete, cancelled or failed. */
  flush(): Promise<UtteranceResult> {
    this.assertUsable();
    const tail = this.utterances.at(-1);
    if (!tail || tail.flushed) return Promise.resolve({ utterance: 0, text: '', audioBytes: 0, outcome: 'spoken' });
    tail.flushed = true;
    this.pump();
    return tail.done;
  }

  /** Speaks what is left, then waits for the server's `finish`. The session stays usable afterwards. */
  stop(): Promise<void> {
    this.assertUsable();
    const tail = this.utterances.at(-1);
    if (tail && !tail.flushed) {
      tail.flushed = true;
      tail.viaStop = true;
    }
    if (!this.utterances.length && !this.started) return Promise.resolve();
    this.stopRequested = true;
    const stopped = new Promise<void>((resolve, reject) => this.stopWaiters.push({ resolve, reject }));
    this.pump();
    return stopped;
  }

  /** Barge-in: drops all pending text and queued audio at once; the socket is replaced so the server stops too. */
  cancel(): void {
    if (this.state !== 'open') return;
    const dropped = this.utterances.splice(0);
    for (const utterance of dropped) utterance.resolve(utteranceResult(utterance, 'cancelled'));
    this.events.drop((event) => event.type === 'audio' || event.type === 'utterance-end');
    this.events.push({ type: 'cancelled', utterances: dropped.map((utterance) => utterance.id) });
    clearTimeout(this.idleTimer);
    this.resolveStop();
    if (this.started) {
      this.dropSocket();
      void this.connect();
    }
  }

  /** Closes the socket and ends the event stream; pending utterances resolve as cancelled. */
  close(): void {
    if (this.state !== 'open') return;
    this.state = 'closed';
    for (const utterance of this.utterances.splice(0)) utterance.resolve(utteranceResult(utterance, 'cancelled'));
    this.resolveStop();
    this.dropSocket(1000);
    this.events.end();
    this.connection.trace.end();
  }

  get closed(): boolean {
    return this.state !== 'open';
  }

  private assertUsable(): void {
    if (this.state === 'failed') throw this.failure;
    if (this.state === 'closed') throw new InvalidRequestError('the live TTS session is closed');
  }

  private openSocket(signal?: AbortSignal): Promise<OpenedLiveSocket> {
    const { baseUrl, headers, timestamps, options } = this.connection;
    return openLiveSocket(liveUrl(baseUrl, timestamps), headers, options.connectTimeoutMs, signal, this.connection.agent);
  }

  private attach({ socket, utteranceEndEvents }: OpenedLiveSocket): void {
    const generation = ++this.generation;
    this.socket = socket;
    this.serverEndsUtterances = utteranceEndEvents;
    this.started = false;
    this.finishedOnSocket = false;
    socket.on('message', (data, isBinary) => {
      if (generation !== this.generation || !isBinary) return;
      let event: ServerLiveEvent | null;
      try {
        event = decodeLiveEvent(frameBytes(data));
      } catch (error) {
        return this.fail(error);
      }
      if (event) this.handle(event);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => this.onClose(generation));
    this.stopKeepalive();
    this.stopKeepalive = keepAlive(socket, this.connection.options);
  }

  private dropSocket(code?: number): void {
    const socket = this.socket;
    this.generation++;
    this.socket = null;
    this.started = false;
    this.stopSent = false;
    this.stopKeepalive();
    clearTimeout(this.idleTimer);
    if (!socket) return;
    if (code) socket.close(code);
    else socket.terminate();
  }

  private pump(): void {
    if (this.state !== 'open') return;
    const socket = this.socket;
    if (!socket || socket.readyState !== socket.OPEN) {
      if (!socket && (this.utterances.length || this.stopRequested)) void this.connect();
      return;
    }
    if (!this.started && (this.utterances.length || (this.stopRequested && !this.stopSent))) {
      if (!this.utterances.length) return this.resolveStop();
      this.socket!.send(encodeLiveEvent({ event: 'start', request: { ...this.connection.request, text: '' } }));
      this.started = true;
    }
    const head = this.utterances[0];
    if (head) {
      if (head.textSent < head.text.length) {
        this.socket!.send(encodeLiveEvent({ event: 'text', text: head.text.slice(head.textSent) }));
        head.textSent = head.text.length;
      }
      if (head.flushed && !head.endSent) {
        head.endSent = true;
        if (head.viaStop) this.stopSent = true;
        this.socket!.send(encodeLiveEvent(head.viaStop ? { event: 'stop' } : this.endEvents ? { event: 'flush', utterance_end: true } : { event: 'flush' }));
      }
    }
    const onlyHeadLeft = this.utterances.length === 0 || (this.utterances.length === 1 && head!.endSent);
    if (this.stopRequested && !this.stopSent && onlyHeadLeft && this.started) {
      this.stopSent = true;
      this.socket!.send(encodeLiveEvent({ event: 'stop' }));
    }
  }

  /** Unknown events are ignored, as the protocol asks. */
  private handle(event: ServerLiveEvent): void {
    if (event.event === 'audio') this.onAudio(event);
    else if (event.event === 'utterance_end') this.onUtteranceEnd(readCharge(event.charge));
    else if (event.event === 'finish' && event.reason !== 'error') this.onFinish(readCharge(event.charge));
    else if (event.event === 'finish' || event.event === 'error') {
      this.fail(new LiveSessionError(`live TTS: ${describeServerError(event.error ?? event.message ?? 'the server finished with an error')}`, undefined, event));
    }
  }

  private onAudio(event: ServerLiveEvent): void {
    const audio = event.audio instanceof Uint8Array ? event.audio : new Uint8Array(0);
    const head = this.utterances[0];
    this.reconnects = 0;
    if (head) head.audioBytes += audio.byteLength;
    const extra = this.connection.timestamps ? timestampFields(event) : {};
    this.events.push({ type: 'audio', utterance: head?.id ?? 0, audio, ...(event.time !== undefined ? { timeMs: event.time } : {}), ...extra });
    if (!head?.endSent || this.endEvents) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.completeHead(head), this.connection.options.utteranceIdleMs);
  }

  private get endEvents(): boolean {
    const asked = this.connection.options.utteranceEndEvents;
    return asked === 'auto' ? this.serverEndsUtterances : asked;
  }

  /** The server has sent all the audio of the oldest flushed utterance. */
  private onUtteranceEnd(charge: number | undefined): void {
    const head = this.utterances[0];
    if (head?.endSent && !head.viaStop) this.completeHead(head, true, charge);
  }

  private completeHead(expected: Utterance, pump = true, charge?: number): void {
    if (this.utterances[0] !== expected || this.state !== 'open') return;
    this.utterances.shift();
    this.events.push({ type: 'utterance-end', utterance: expected.id, text: expected.text, audioBytes: expected.audioBytes, ...(charge !== undefined ? { charge } : {}) });
    expected.resolve(utteranceResult(expected, 'spoken'));
    if (pump) this.pump();
  }

  private onFinish(charge: number | undefined): void {
    clearTimeout(this.idleTimer);
    this.started = false;
    this.finishedOnSocket = true;
    while (this.utterances[0]?.endSent) this.completeHead(this.utterances[0], false);
    this.events.push({ type: 'finish', ...(charge !== undefined ? { charge } : {}) });
    this.resolveStop();
    this.pump();
  }

  private resolveStop(): void {
    this.stopRequested = false;
    this.stopSent = false;
    for (const waiter of this.stopWaiters.splice(0)) waiter.resolve();
  }

  private onClose(generation: number): void {
    if (generation !== this.generation) return;
    const afterFinish = this.finishedOnSocket;
    this.socket = null;
    this.started = false;
    this.stopSent = false;
    this.stopKeepalive();
    clearTimeout(this.idleTimer);
    if (this.state !== 'open' || (!this.utterances.length && !this.stopRequested)) return;
    const head = this.utterances[0];
    if (head && head.audioBytes > 0) {
      this.events.push({ type: 'utterance-restart', utterance: head.id, droppedBytes: head.audioBytes });
      head.audioBytes = 0;
    }
    for (const utterance of this.utterances) {
      utterance.textSent = 0;
      utterance.endSent = false;
    }
    if (!afterFinish) this.reconnects++;
    void this.connect(true);
  }

  private connect(reconnecting = false): Promise<void> {
    if (this.connecting || this.state !== 'open') return this.connecting ?? Promise.resolve();
    const { maxReconnects, reconnectDelayMs } = this.connection.options;
    if (this.reconnects > maxReconnects) {
      this.fail(new ConnectionError(`live TTS: the socket closed and ${maxReconnects} reconnects failed`));
      return Promise.resolve();
    }
    const delay = this.reconnects > 0 ? reconnectDelayMs * 2 ** (this.reconnects - 1) : 0;
    const attempt = this.reconnects;
    this.connecting = new Promise<void>((resolve) => setTimeout(resolve, delay))
      .then(() => this.openSocket())
      .then((opened) => {
        this.connecting = null;
        if (this.state !== 'open') return void opened.socket.close(1000);
        this.attach(opened);
        if (reconnecting) this.events.push({ type: 'reconnected', attempt });
        this.pump();
      })
      .catch((error: unknown) => {
        this.connecting = null;
        if (error instanceof SpeechClientError && error.status !== undefined && FATAL_STATUSES.has(error.status)) return this.fail(error);
        this.reconnects++;
        void this.connect(reconnecting);
      });
    return this.connecting;
  }

  private fail(error: unknown): void {
    if (this.state !== 'open') return;
    this.state = 'failed';
    this.failure = error;
    for (const utterance of this.utterances.splice(0)) utterance.resolve(utteranceResult(utterance, 'failed', error));
    for (const waiter of this.stopWaiters.splice(0)) waiter.reject(error);
    this.dropSocket();
    this.events.fail(error);
    this.connection.trace.end(error);
  }
}
