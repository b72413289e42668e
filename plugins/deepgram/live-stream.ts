import type WebSocket from 'ws';
import { encodeMuLaw, frameDurationMs, type AudioFrame } from '../../src/audio/index.js';
import { ProviderError, readCharge } from '../../src/agent/index.js';
import { openProviderSocket, websocketUrl } from '../provider-kit.js';
import { parseMessage, type DeepgramResults } from './messages.js';
import { baseUrlVariable, deepgramBaseUrl, keyVariable, listenQuery, type DeepgramOptions, type ListenTerms } from './options.js';

/** What a stream tells one utterance's recognition. */
export interface UtteranceSink {
  results(results: DeepgramResults): void;
  /** Deepgram's `UtteranceEnd`: the caller stopped (past `utterance_end_ms` of silence). */
  utteranceEnd(): void;
  /** `Finalize` got no `from_finalize` answer in time: end on what was heard. */
  finalizeTimedOut(): void;
  fail(error: ProviderError): void;
}

/** One utterance on a stream: the stream audio it covers (ms from the socket's first audio). */
export class StreamUtterance {
  endMs: number | undefined;
  finalizing = false;
  done = false;
  timer: NodeJS.Timeout | undefined;
  constructor(
    readonly startMs: number,
    readonly sink: UtteranceSink,
  ) {}

  /** Word times of the stream (seconds) as ms from this utterance's start. */
  relativeMs(streamSeconds: number): number {
    return Math.max(0, Math.round(streamSeconds * 1000 - this.startMs));
  }
}

/**
 * One Deepgram live socket (`/v1/listen`) of one call: the call's utterances go through it one after another.
 * Audio is sent in messages of at least `chunkMs` (buffered until the socket opens); `KeepAlive` while no audio
 * flows; what is left, then `Finalize` at Shoal's endpoint; `CloseStream` at hang-up. Results are routed to the utterance whose audio they cover.
 */
export class DeepgramStream {
  readonly encoding: 'linear16' | 'mulaw';
  private socket: WebSocket | undefined;
  private readonly pending: Array<Buffer | string> = [];
  /** Audio not yet sent, gathered up to `chunkMs`. */
  private chunk: Buffer[] = [];
  private chunkMs = 0;
  private readonly utterances: StreamUtterance[] = [];
  private sentMs = 0;
  private lastSendAt = Date.now();
  private keepAlive: NodeJS.Timeout | undefined;
  private failure: ProviderError | undefined;
  private closing = false;
  private closed: Promise<number | undefined> | undefined;
  /** What Shoal's `/v1/listen` said it billed (`Metadata`), when it says. */
  private charge: number | undefined;

  constructor(
    private readonly options: DeepgramOptions & { apiKey: string },
    readonly sampleRate: number,
    readonly terms: ListenTerms,
  ) {
    this.encoding = options.encoding === 'auto' ? (sampleRate === 8000 ? 'mulaw' : 'linear16') : options.encoding;
    const baseUrl = options.baseUrl ?? process.env[baseUrlVariable] ?? deepgramBaseUrl;
    const url = websocketUrl(baseUrl, '/v1/listen', listenQuery(options, sampleRate, this.encoding, terms));
    openProviderSocket('deepgram', url, {
      headers: { Authorization: `${options.authScheme} ${options.apiKey}` },
      timeoutMs: options.connectTimeoutMs,
      keyVariable,
    }).then(
      (socket) => this.opened(socket),
      (error: ProviderError) => this.fail(error),
    );
  }

  /** False once the socket failed or is closing: the call opens another for its next utterance. */
  get usable(): boolean {
    return !this.failure && !this.closing;
  }

  /** True while an utterance waits for its audio or results. */
  get busy(): boolean {
    return this.utterances.some((utterance) => !utterance.done);
  }

  begin(sink: UtteranceSink): StreamUtterance {
    const utterance = new StreamUtterance(this.sentMs, sink);
    if (this.failure) {
      utterance.done = true;
      sink.fail(this.failure);
      return utterance;
    }
    this.utterances.push(utterance);
    return utterance;
  }

  send(frame: AudioFrame): void {
    if (!this.usable) return;
    const samples = frame.samples;
    const bytes = this.encoding === 'mulaw' ? Buffer.from(encodeMuLaw(samples)) : Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
    const ms = frameDurationMs(frame);
    this.sentMs += ms;
    this.chunk.push(bytes);
    this.chunkMs += ms;
    if (this.chunkMs >= this.options.chunkMs) this.sendChunk();
  }

  /** Shoal's endpoint fired: Deepgram finalises what it heard, answering with a `from_finalize` result. */
  finalize(utterance: StreamUtterance): void {
    if (utterance.done || utterance.finalizing) return;
    utterance.endMs = this.sentMs;
    utterance.finalizing = true;
    this.sendChunk();
    this.write(JSON.stringify({ type: 'Finalize' }));
    utterance.timer = setTimeout(() => {
      if (!utterance.done) utterance.sink.finalizeTimedOut();
    }, this.options.finalizeTimeoutMs);
    utterance.timer.unref?.();
  }

  /** The utterance's recognition ended (or was given up): its results are no longer routed to it. */
  end(utterance: StreamUtterance): void {
    if (!utterance.finalizing && !utterance.done && this.usable) {
      // Given up half-way: finalise so its words do not run into the next utterance's results.
      this.finalize(utterance);
      return;
    }
    this.settle(utterance);
  }

  /**
   * Hang-up: `CloseStream`, then the socket closes once Deepgram has sent its `Metadata` (or after a second).
   * Resolves when it has closed, with the credits the `Metadata` said were billed (Shoal's `/v1/listen`).
   */
  close(): Promise<number | undefined> {
    if (this.closed) return this.closed;
    this.closing = true;
    clearInterval(this.keepAlive);
    for (const utterance of this.utterances) clearTimeout(utterance.timer);
    const socket = this.socket;
    if (!socket) {
      this.pending.length = 0;
      return (this.closed = Promise.resolve(undefined));
    }
    if (socket.readyState === socket.OPEN) {
      this.sendChunk();
      socket.send(JSON.stringify({ type: 'CloseStream' }));
    }
    if (socket.readyState === socket.CLOSED) return (this.closed = Promise.resolve(this.charge));
    const timer = setTimeout(() => socket.terminate(), 1000);
    timer.unref?.();
    this.closed = new Promise((resolve) =>
      socket.once('close', () => {
        clearTimeout(timer);
        resolve(this.charge);
      }),
    );
    return this.closed;
  }

  private settle(utterance: StreamUtterance): void {
    utterance.done = true;
    clearTimeout(utterance.timer);
    const index = this.utterances.indexOf(utterance);
    if (index >= 0) this.utterances.splice(index, 1);
  }

  private sendChunk(): void {
    if (this.chunk.length === 0) return;
    const bytes = this.chunk.length === 1 ? this.chunk[0]! : Buffer.concat(this.chunk);
    this.chunk = [];
    this.chunkMs = 0;
    this.write(bytes);
  }

  private write(data: Buffer | string): void {
    this.lastSendAt = Date.now();
    if (this.socket) this.socket.send(data);
    else this.pending.push(data);
  }

  private opened(socket: WebSocket): void {
    if (this.closing) {
      socket.close();
      return;
    }
    this.socket = socket;
    socket.on('message', (data, binary) => {
      if (!binary) this.received(data.toString());
    });
    socket.on('close', (code, reason) => this.dropped(code, reason.toString()));
    socket.on('error', () => undefined);
    for (const data of this.pending.splice(0)) socket.send(data);
    this.keepAlive = setInterval(() => {
      if (Date.now() - this.lastSendAt >= this.options.keepAliveMs && socket.readyState === socket.OPEN) {
        this.lastSendAt = Date.now();
        socket.send(JSON.stringify({ type: 'KeepAlive' }));
      }
    }, Math.max(50, Math.floor(this.options.keepAliveMs / 2)));
    this.keepAlive.unref?.();
  }

  private received(text: string): void {
    const message = parseMessage(text);
    if (!message) return;
    if (message.type === 'Results') {
      const target = message.from_finalize ? this.utterances.find((u) => u.finalizing) : this.covering(message.start * 1000);
      if (!target) return;
      if (message.from_finalize) this.settle(target);
      target.sink.results(message);
    } else if (message.type === 'UtteranceEnd') {
      this.covering(message.last_word_end * 1000)?.sink.utteranceEnd();
    } else if (message.type === 'Metadata') {
      this.charge = readCharge(message.shoal_charge) ?? this.charge;
    } else if (message.type === 'Error') {
      this.fail(new ProviderError('deepgram', 'server', message.description ?? message.message ?? 'error from Deepgram'));
    }
  }

  /** The open utterance whose audio holds stream time `ms`. */
  private covering(ms: number): StreamUtterance | undefined {
    return this.utterances.find((u) => u.endMs === undefined || ms < u.endMs - 1) ?? this.utterances.at(-1);
  }

  private dropped(code: number, reason: string): void {
    clearInterval(this.keepAlive);
    if (this.closing) return;
    const said = reason ? `: ${reason}` : '';
    this.fail(new ProviderError('deepgram', code === 1008 ? 'request' : 'dropped', `the socket closed mid-call (${code}${said})`, { status: code }));
  }

  private fail(error: ProviderError): void {
    if (this.failure) return;
    this.failure = error;
    clearInterval(this.keepAlive);
    this.socket?.terminate();
    for (const utterance of this.utterances.splice(0)) {
      clearTimeout(utterance.timer);
      utterance.done = true;
      utterance.sink.fail(error);
    }
  }
}
