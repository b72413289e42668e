import type { FastifyBaseLogger } from 'fastify';
import type { RawData, WebSocket } from 'ws';
import { concatBytes, type AsyncStreamingEncoder } from '../../audio/index.js';
import { openEncoder } from '../../engines/index.js';
import { ServiceError, type Principal } from '../accounts.js';
import type { ServiceContext } from '../context.js';
import { RequestValidationError, statusOf } from '../http/errors.js';
import { chargeText } from '../http/gate.js';
import { decodeMsgpack, encodeMsgpack } from '../http/msgpack.js';
import type { ServerSpan } from '../http/tracing.js';
import { chunkAlignment } from '../tts/alignment.js';
import { encodeInPieces } from '../tts/encoded-stream.js';
import type { ModelProfile } from '../tts/models.js';
import { prepareTts, type TtsPlan } from '../tts/prepare.js';
import { synthesizeChunks, workingSampleRate, type SynthesizedChunk } from '../tts/synthesis.js';
import { planChunks } from '../tts/text-plan.js';
import type { LiveOptions } from './options.js';
import { RoundBilling } from './round-billing.js';
import { completeText, drainPaddingMs } from './segmenting.js';
import { spanAttributes } from '../../tracing/index.js';
import { countTimeout } from '../../metrics/index.js';

export interface LiveSessionSetup {
  id: string;
  principal: Principal;
  model: ModelProfile;
  withTimestamps: boolean;
  service: ServiceContext;
  span: ServerSpan;
  log: FastifyBaseLogger;
  options: LiveOptions;
}

type Frame = Record<string, unknown> & { event: string };

/** Close codes: 1000 after finish, 1008 for a client's protocol error, 1011 for a server failure, 1001 on shutdown. */
const closeCodes = { normal: 1000, goingAway: 1001, policy: 1008, internal: 1011 } as const;

/**
 * One realtime TTS connection (docs/realtime-protocol.md): `start` → `text`* / `flush`* → `stop`, answered with `audio`
 * events per synthesised chunk and a `finish`. Frames are handled strictly in order; synthesis runs on a
 * queue so text keeps arriving while audio is produced. Any failure ends in `error` + `finish{reason:"error"}`.
 */
export class LiveTtsSession {
  readonly closed: Promise<void>;
  private state: 'waiting' | 'active' | 'stopping' | 'ended' = 'waiting';
  private inbox: Promise<void> = Promise.resolve();
  private speech: Promise<void> = Promise.resolve();
  private controller = new AbortController();
  private plan: TtsPlan | undefined;
  private encoder: AsyncStreamingEncoder | undefined;
  private buffer = '';
  private speaker = 0;
  private audioMs = 0;
  private seq = 0;
  /** The round's credit hold and what it has delivered. */
  private billing: RoundBilling | undefined;
  private round = 0;
  private draining = false;
  private lastPong = Date.now();
  private readonly pingTimer: NodeJS.Timeout;
  private startTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ws: WebSocket,
    private readonly setup: LiveSessionSetup,
  ) {
    let resolveClosed!: () => void;
    this.closed = new Promise((resolve) => (resolveClosed = resolve));
    ws.on('message', (data: RawData, isBinary: boolean) => this.receive(data, isBinary));
    ws.on('pong', () => (this.lastPong = Date.now()));
    ws.on('error', (error) => setup.log.warn({ err: error }, 'live socket error'));
    ws.on('close', (code: number) => {
      clearInterval(this.pingTimer);
      clearTimeout(this.startTimer);
      this.controller.abort(new Error('socket closed'));
      this.state = 'ended';
      this.settle()
        .catch((error: unknown) => setup.log.error({ err: error }, 'billing a live session failed'))
        .finally(() => {
          setup.span.span.setAttribute(spanAttributes.liveCloseCode, code);
          setup.span.end();
          setup.log.info({ sessionId: setup.id, closeCode: code, audioMs: Math.round(this.audioMs), chunks: this.seq }, 'live session closed');
          this.encoderClose();
          resolveClosed();
        });
    });
    this.pingTimer = setInterval(() => this.keepAlive(), setup.options.pingIntervalMs);
    this.pingTimer.unref();
    this.awaitStart();
  }

  get principal(): Principal {
    return this.setup.principal;
  }

  /** Ends the session because its key was revoked or has expired. */
  revoke(): void {
    this.fail(new ServiceError(401, 'the API key was revoked or has expired; the session ends'), closeCodes.policy);
  }

  private awaitStart(): void {
    clearTimeout(this.startTimer);
    const timeoutMs = this.setup.options.startTimeoutMs;
    this.startTimer = setTimeout(() => {
      if (this.state !== 'waiting') return;
      countTimeout('live-start');
      this.fail(new ServiceError(408, `no start event within ${timeoutMs / 1000} s; send {event: "start", request: {...}} first`), closeCodes.policy);
    }, timeoutMs).unref();
  }

  /**
   * Waits while the client has not read what was sent (more than `maxBufferedBytes` queued), so synthesis
   * does not run ahead of it; a client that reads nothing for `unreadTimeoutMs` is dropped.
   */
  private async clientCaughtUp(): Promise<void> {
    const { maxBufferedBytes, unreadTimeoutMs } = this.setup.options;
    let waitedFrom: number | undefined;
    let buffered = this.ws.bufferedAmount;
    while (this.ws.bufferedAmount > maxBufferedBytes && !this.ended()) {
      const now = Date.now();
      if (this.ws.bufferedAmount < buffered || waitedFrom === undefined) waitedFrom = now;
      buffered = this.ws.bufferedAmount;
      if (now - waitedFrom > unreadTimeoutMs) {
        this.setup.log.warn({ sessionId: this.setup.id, bufferedBytes: buffered }, 'live client stopped reading; dropping it');
        countTimeout('live-unread');
        this.fail(new ServiceError(408, `the client read nothing for ${unreadTimeoutMs / 1000} s`), closeCodes.policy);
        this.ws.terminate();
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /**
   * The server is draining: a round in progress runs to its `finish` and then the socket closes (1000); a
   * session between rounds (or before its first) ends now.
   */
  drain(): void {
    this.draining = true;
    if (this.state === 'waiting') this.shutdown('the server is shutting down');
  }

  /** Ends the session from the server side: `error` and `finish{reason:"error"}`, then a close handshake. */
  shutdown(reason: string): void {
    this.fail(new ServiceError(503, reason), closeCodes.goingAway);
  }

  /** Drops the connection without waiting for the client's close frame. */
  terminate(): void {
    this.ws.terminate();
  }

  private keepAlive(): void {
    if (Date.now() - this.lastPong > this.setup.options.pongTimeoutMs) {
      this.setup.log.warn({ sessionId: this.setup.id }, 'live client stopped answering pings; dropping it');
      this.ws.terminate();
      return;
    }
    this.ws.ping();
  }

  private receive(data: RawData, isBinary: boolean): void {
    if (!isBinary || this.state === 'ended') return;
    let frame: Frame;
    try {
      const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
      const decoded = decodeMsgpack(bytes, this.setup.service.limits.msgpack);
      if (typeof decoded !== 'object' || decoded === null || Array.isArray(decoded) || typeof (decoded as Frame).event !== 'string') {
        throw new ServiceError(400, 'every frame must be a MessagePack map with a string event key');
      }
      frame = decoded as Frame;
    } catch (error) {
      this.fail(error, closeCodes.policy);
      return;
    }
    this.inbox = this.inbox
      .then(() => this.handle(frame))
      .catch((error: unknown) => this.fail(error, statusOf(error) < 500 ? closeCodes.policy : closeCodes.internal));
  }

  private async handle(frame: Frame): Promise<void> {
    if (this.state === 'ended') return;
    switch (frame.event) {
      case 'start':
        return this.begin(frame.request);
      case 'text': {
        if (this.state === 'stopping') return;
        this.requireActive('text');
        if (typeof frame.text !== 'string') throw new ServiceError(400, 'a text event needs a string text field');
        this.buffer += frame.text;
        if (this.buffer.length > this.setup.service.limits.maxTextCharacters) {
          throw new ServiceError(400, `more than ${this.setup.service.limits.maxTextCharacters} characters buffered; send flush more often`);
        }
        const { ready, rest } = completeText(this.buffer, this.plan!.chunking);
        this.buffer = rest;
        if (ready) this.enqueue(ready);
        return;
      }
      case 'flush':
        if (this.state === 'stopping') return;
        this.requireActive('flush');
        this.enqueue(this.takeBuffer());
        if (frame.utterance_end === true) {
          this.afterSpeech(() => {
            const charge = this.billing?.utteranceCharge();
            this.send({ event: 'utterance_end', ...(charge !== undefined ? { charge } : {}) });
          });
        }
        return;
      case 'stop':
        if (this.state === 'waiting') return this.finish();
        if (this.state === 'stopping') return;
        this.state = 'stopping';
        this.enqueue(this.takeBuffer());
        await this.speech;
        return this.finish();
      default:
        this.setup.log.debug({ sessionId: this.setup.id, event: frame.event }, 'ignoring unknown live event');
    }
  }

  private requireActive(event: string): void {
    if (this.state !== 'active') throw new ServiceError(400, `${event} before start: send {event: "start", request: {...}} first`);
  }

  private async begin(request: unknown): Promise<void> {
    if (this.state !== 'waiting') throw new ServiceError(400, 'start was already received; send text, flush or stop');
    clearTimeout(this.startTimer);
    if (typeof request !== 'object' || request === null || Array.isArray(request)) {
      throw new ServiceError(400, 'start needs a request map with the POST /v1/tts fields');
    }
    const { service, principal, model } = this.setup;
    if (this.round > 0) await service.accounts.ensureCredit(principal);
    if (!(await service.accounts.isActive(principal))) throw new ServiceError(401, 'the API key was revoked or has expired');
    const body = { ...(request as Record<string, unknown>) };
    if (body.text === undefined || body.text === null) body.text = '';
    this.plan = await prepareTts({ body, msgpack: true, principal, model }, service);
    this.encoder = await openEncoder({ ...this.plan.encoder, inputSampleRate: workingSampleRate });
    this.round += 1;
    this.billing = new RoundBilling(await service.accounts.reserve(principal, { kind: 'tts', characters: 0 }, `${this.setup.id}:${this.round}`));
    this.state = 'active';
    this.buffer = this.plan.request.text;
    this.speaker = 0;
    this.audioMs = 0;
  }

  /** A method, not a field check, so TypeScript does not narrow the state across awaits. */
  private ended(): boolean {
    return this.state === 'ended';
  }

  private takeBuffer(): string {
    const text = this.buffer;
    this.buffer = '';
    return text;
  }

  private enqueue(text: string): void {
    if (!text.trim()) return;
    this.speech = this.speech.then(() => this.speak(text));
    this.speech.catch((error: unknown) => this.fail(error, statusOf(error) < 500 ? closeCodes.policy : closeCodes.internal));
  }

  /** Runs `then` once everything enqueued so far has been spoken (or has failed, which ends the session). */
  private afterSpeech(then: () => void): void {
    this.speech = this.speech.then(() => {
      if (!this.ended()) then();
    });
    this.speech.catch(() => undefined);
  }

  /** Reserves the segment's price (402 ends the session), then sends its chunks, counting what went out. */
  private async speak(text: string): Promise<void> {
    if (this.state === 'ended') return;
    const plan = this.plan!;
    const { chunks, lastSpeaker, characters } = planChunks(text, plan.chunking, plan.synthesis.voices.length, this.speaker);
    this.speaker = lastSpeaker;
    const billing = this.billing!;
    await billing.reserve(characters);
    if (this.ended()) return;
    const engine = this.setup.service.engines.tts();
    const segment = billing.sending(chunks, characters);
    let index = 0;
    for await (const chunk of synthesizeChunks(engine, chunks, plan.synthesis, { signal: this.controller.signal, trace: this.setup.span.context })) {
      await this.clientCaughtUp();
      if (this.ended()) break;
      const last = ++index === chunks.length;
      segment.sent(chunk.chunk);
      await this.sendAudio(chunk, last);
    }
    billing.segmentDone();
  }

  /** Sends a chunk's audio: piece by piece on the plain endpoint, as one event with its alignment on with-timestamp. */
  private async sendAudio(chunk: SynthesizedChunk, lastOfSegment: boolean): Promise<void> {
    const encoder = this.encoder;
    if (this.state === 'ended' || !encoder) return;
    let samples = chunk.samples;
    const padMs = lastOfSegment ? drainPaddingMs(encoder.format) : 0;
    if (padMs > 0) {
      samples = new Int16Array(chunk.samples.length + Math.round((padMs * workingSampleRate) / 1000));
      samples.set(chunk.samples);
    }
    const chunkMs = (samples.length * 1000) / workingSampleRate;
    if (this.setup.withTimestamps) {
      const parts: Uint8Array[] = [];
      for await (const { bytes } of encodeInPieces(encoder, samples)) parts.push(bytes);
      this.send({
        event: 'audio',
        audio: concatBytes(parts),
        time: Math.round(this.audioMs),
        content: chunk.chunk.text,
        alignment: chunkAlignment(chunk.words, chunkMs),
        chunk_seq: this.seq,
        chunk_audio_offset_sec: Math.round(this.audioMs) / 1000,
      });
    } else {
      for await (const { bytes, start } of encodeInPieces(encoder, samples)) {
        await this.clientCaughtUp();
        if (this.ended()) return;
        if (bytes.length > 0) this.send({ event: 'audio', audio: bytes, time: Math.round(this.audioMs + (start * 1000) / workingSampleRate) });
      }
    }
    this.audioMs += chunkMs;
    this.seq += 1;
  }

  private async finish(): Promise<void> {
    if (this.state === 'ended') return;
    const tail = await this.encoderEnd();
    if (tail && tail.length > 0) this.send({ event: 'audio', audio: tail, time: Math.round(this.audioMs) });
    const charge = chargeText(await this.settle());
    this.send({ event: 'finish', reason: 'stop', ...(charge !== undefined ? { charge } : {}) });
    if (this.setup.options.closeAfterFinish || this.draining) {
      this.state = 'ended';
      this.ws.close(closeCodes.normal);
    } else {
      this.state = 'waiting';
      this.awaitStart();
    }
  }

  /**
   * Bills the characters whose audio was sent this round (a segment cut short by a stop) and ends its hold;
   * the micro-credits debited (null where requests are not billed).
   */
  private async settle(): Promise<number | null> {
    const billing = this.billing;
    if (!billing) return null;
    this.billing = undefined;
    const { characters, micros } = await billing.settle();
    if (characters > 0) await Promise.all((this.plan?.referenceIds ?? []).map((referenceId) => this.setup.service.voices.recordUse?.(referenceId)));
    return micros;
  }

  private async encoderEnd(): Promise<Uint8Array | undefined> {
    const encoder = this.encoder;
    this.encoder = undefined;
    if (!encoder) return undefined;
    try {
      return await encoder.end();
    } catch (error) {
      this.setup.log.warn({ err: error }, 'ending the live encoder failed');
      return undefined;
    }
  }

  /** Frees the round's encoder without finishing its stream (the socket is gone). */
  private encoderClose(): void {
    this.encoder?.close();
    this.encoder = undefined;
  }

  private fail(error: unknown, code: number): void {
    if (this.state === 'ended') return;
    this.state = 'ended';
    this.controller.abort(error);
    const status = statusOf(error);
    const message =
      status === 500 ? 'internal error; the server log has the details' : error instanceof Error ? error.message : String(error);
    if (status === 500) this.setup.log.error({ err: error, sessionId: this.setup.id }, 'live session failed');
    const detail = error instanceof RequestValidationError ? { detail: error.issues } : {};
    this.send({ event: 'error', error: { status, message, ...detail } });
    this.send({ event: 'finish', reason: 'error', message });
    this.ws.close(code, status === 500 ? 'internal error' : 'request error');
  }

  private send(event: Record<string, unknown>): void {
    if (this.ws.readyState !== this.ws.OPEN) return;
    this.ws.send(encodeMsgpack(event));
  }
}
