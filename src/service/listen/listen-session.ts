import type { FastifyBaseLogger } from 'fastify';
import type { RawData, WebSocket } from 'ws';
import type { StreamingRecognizer, VoiceActivityDetector } from '../../engines/index.js';
import { ServiceError, type Principal, type Reservation } from '../accounts.js';
import type { ServiceContext } from '../context.js';
import type { ServerSpan } from '../http/tracing.js';
import { spanAttributes } from '../../tracing/index.js';
import { countTimeout } from '../../metrics/index.js';
import { AudioInput, recognizerRate, UndecodableAudioError } from './audio-input.js';
import { metadataMessage, resultsMessage, resultWords, seconds, speechStartedMessage, utteranceEndMessage } from './messages.js';
import type { ListenOptions } from './options.js';
import type { ListenSettings } from './query.js';
import { SpeechSegmenter, type SegmentEvent } from './speech-segmenter.js';

export interface ListenSessionSetup {
  id: string;
  principal: Principal;
  settings: ListenSettings;
  reservation: Reservation;
  recognizer: StreamingRecognizer;
  vad: VoiceActivityDetector;
  service: ServiceContext;
  span: ServerSpan;
  log: FastifyBaseLogger;
  options: ListenOptions;
}

/** Deepgram's close codes and reasons (https://developers.deepgram.com/docs/stt-troubleshooting-websocket-data-and-net-errors). */
export const closeCodes = { normal: 1000, goingAway: 1001, policy: 1008, internal: 1011 } as const;

/** A close reason is at most 123 bytes. */
function reason(text: string): string {
  return Buffer.byteLength(text) <= 123 ? text : Buffer.from(text).subarray(0, 120).toString('utf8') + '...';
}

/**
 * One Deepgram-compatible live recognition socket: binary audio in, `Results` (interim and final),
 * `SpeechStarted`, `UtteranceEnd` and a closing `Metadata` out; `KeepAlive`, `Finalize` and `CloseStream` taken.
 * Messages are handled strictly in order. Audio is billed by the second received, from a hold grown ahead of it.
 */
export class ListenSession {
  readonly closed: Promise<void>;
  private readonly input: AudioInput;
  private readonly segmenter: SpeechSegmenter;
  private inbox: Promise<void> = Promise.resolve();
  private ended = false;
  /** CloseStream was received: the session ends once its audio is recognised. */
  private closing = false;
  /** Messages received and not yet handled. */
  private queued = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  private readonly created = new Date();
  /** Credit held so far, in ms of audio. */
  private heldMs = 0;
  /** Where the last final ended: the next result starts here (ms of audio). */
  private finalizedMs = 0;
  /** Audio time of the first sample written to the recognizer for the utterance in progress. */
  private utteranceAudioMs = 0;
  private samplesSinceInterim = 0;
  private lastInterim = '';
  private utteranceOpen = false;
  /** End of the last final word, while an `UtteranceEnd` is owed for it. */
  private owedUtteranceEndMs: number | undefined;

  constructor(
    private readonly ws: WebSocket,
    private readonly setup: ListenSessionSetup,
  ) {
    const { settings } = setup;
    this.input = new AudioInput(settings.encoding, settings.sampleRate);
    this.segmenter = new SpeechSegmenter(setup.vad, settings.endpointingMs);
    let resolveClosed!: () => void;
    this.closed = new Promise((resolve) => (resolveClosed = resolve));
    ws.on('message', (data: RawData, isBinary: boolean) => this.receive(data, isBinary));
    ws.on('error', (error) => setup.log.warn({ err: error }, 'listen socket error'));
    ws.on('close', (code: number) => {
      this.ended = true;
      clearTimeout(this.idleTimer);
      const receivedMs = this.input.receivedMs;
      this.settle()
        .catch((error: unknown) => setup.log.error({ err: error }, 'billing a listen session failed'))
        .finally(() => {
          setup.recognizer.close();
          setup.vad.release();
          this.input.close();
          setup.span.span.setAttributes({ [spanAttributes.liveCloseCode]: code, [spanAttributes.asrAudioMs]: Math.round(receivedMs) });
          setup.span.end();
          setup.log.info({ sessionId: setup.id, closeCode: code, audioMs: Math.round(receivedMs) }, 'listen session closed');
          resolveClosed();
        });
    });
    this.armIdleTimer();
  }

  get principal(): Principal {
    return this.setup.principal;
  }

  /** Ends the session because its key was revoked or has expired. */
  revoke(): void {
    this.close(closeCodes.policy, 'INVALID_AUTH: the API key was revoked or has expired');
  }

  /** Ends the session from the server side (shutdown). */
  shutdown(why: string): void {
    this.close(closeCodes.goingAway, why);
  }

  terminate(): void {
    this.ws.terminate();
  }

  private close(code: number, why: string): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.idleTimer);
    this.ws.close(code, reason(why));
  }

  /**
   * The idle window runs while the server has nothing left to do: a client waiting for the results of what
   * it sent is not idle; one that sent CloseStream is no longer timed.
   */
  private armIdleTimer(): void {
    clearTimeout(this.idleTimer);
    if (this.closing) return;
    const { idleTimeoutMs } = this.setup.options;
    this.idleTimer = setTimeout(() => {
      if (this.queued > 0) return;
      countTimeout('listen-idle');
      this.close(closeCodes.internal, `NET-0001: no audio or text message within ${idleTimeoutMs / 1000} s; send KeepAlive while there is no audio`);
    }, idleTimeoutMs).unref();
  }

  private receive(data: RawData, isBinary: boolean): void {
    if (this.ended) return;
    this.armIdleTimer();
    const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
    if (isBinary) {
      // An empty binary message is Deepgram's older way to say CloseStream.
      if (bytes.length === 0) this.closing = true;
      this.enqueue(() => (bytes.length === 0 ? this.closeStream() : this.audio(bytes)));
      return;
    }
    let type: unknown;
    try {
      type = (JSON.parse(bytes.toString('utf8')) as { type?: unknown }).type;
    } catch {
      this.close(closeCodes.policy, 'DATA-0000: text messages must be JSON: {"type":"KeepAlive"|"Finalize"|"CloseStream"}');
      return;
    }
    if (type === 'KeepAlive') return;
    if (type === 'Finalize') return this.enqueue(() => this.finalize(true));
    if (type === 'CloseStream') {
      this.closing = true;
      clearTimeout(this.idleTimer);
      return this.enqueue(() => this.closeStream());
    }
    this.close(closeCodes.policy, `DATA-0000: unknown message type ${JSON.stringify(type)}; send KeepAlive, Finalize or CloseStream`);
  }

  private enqueue(work: () => Promise<void>): void {
    this.queued++;
    this.inbox = this.inbox
      .then(() => (this.ended ? undefined : work()))
      .finally(() => {
        if (--this.queued === 0 && !this.ended) this.armIdleTimer();
      })
      .catch((error: unknown) => {
        if (this.ended) return;
        if (error instanceof UndecodableAudioError) return this.close(closeCodes.policy, `DATA-0000: ${error.message}`);
        if (error instanceof ServiceError && error.status === 402) return this.close(closeCodes.policy, `INSUFFICIENT_CREDIT: ${error.message}`);
        this.setup.log.error({ err: error, sessionId: this.setup.id }, 'listen session failed');
        this.close(closeCodes.internal, 'NET-0000: the server failed to process the audio; the server log has the details');
      });
  }

  /** Holds credit for the audio before it is decoded: a block ahead, or just what is needed when less is left. */
  private async hold(untilMs: number): Promise<void> {
    if (untilMs <= this.heldMs) return;
    const blockMs = this.setup.options.holdBlockSeconds * 1000;
    const { reservation } = this.setup;
    try {
      await reservation.extend({ kind: 'asr', seconds: blockMs / 1000 });
      this.heldMs += blockMs;
    } catch (error) {
      if (!(error instanceof ServiceError) || error.status !== 402) throw error;
      const neededMs = untilMs - this.heldMs;
      await reservation.extend({ kind: 'asr', seconds: neededMs / 1000 });
      this.heldMs += neededMs;
    }
    if (untilMs > this.heldMs) await this.hold(untilMs);
  }

  private async audio(bytes: Buffer): Promise<void> {
    await this.hold(this.input.receivedMs + this.input.take(bytes));
    const samples = await this.input.decode();
    await this.recognize(await this.segmenter.push(samples));
  }

  private async recognize(events: SegmentEvent[]): Promise<void> {
    const { recognizer, settings } = this.setup;
    for (const event of events) {
      if (this.ended) return;
      switch (event.type) {
        case 'speech-start':
          this.settleUtteranceEnd(event.atMs);
          if (settings.vadEvents) this.send(speechStartedMessage(event.atMs));
          this.utteranceOpen = true;
          this.utteranceAudioMs = event.audioStartMs;
          await this.write(event.audio);
          break;
        case 'audio':
          await this.write(event.audio);
          break;
        case 'paused':
          await recognizer.speechPaused?.();
          break;
        case 'endpoint':
          await this.final(event.atMs, { speechFinal: event.speechEnded, fromFinalize: false });
          break;
      }
    }
    if (!this.segmenter.inUtterance) this.settleUtteranceEnd(this.segmenter.scoredMs);
  }

  private async write(samples: Int16Array): Promise<void> {
    await this.setup.recognizer.write(samples);
    this.samplesSinceInterim += samples.length;
    if (!this.setup.settings.interimResults) return;
    if ((this.samplesSinceInterim * 1000) / recognizerRate < this.setup.options.interimIntervalMs) return;
    this.samplesSinceInterim = 0;
    const hypothesis = await this.setup.recognizer.partial();
    if (hypothesis.text === this.lastInterim || hypothesis.words.length === 0) return;
    this.lastInterim = hypothesis.text;
    const writtenEndMs = this.segmenter.scoredMs;
    this.send(this.results(writtenEndMs, resultWords(hypothesis.words, this.utteranceAudioMs), { isFinal: false, speechFinal: false, fromFinalize: false }));
  }

  /** Ends the utterance in progress at `endMs` and sends its final (with no words when none was heard). */
  private async final(endMs: number, flags: { speechFinal: boolean; fromFinalize: boolean }): Promise<void> {
    let words: ReturnType<typeof resultWords> = [];
    if (this.utteranceOpen) {
      const hypothesis = await this.setup.recognizer.finish();
      words = resultWords(hypothesis.words, this.utteranceAudioMs);
      this.utteranceOpen = false;
    }
    this.samplesSinceInterim = 0;
    this.lastInterim = '';
    this.send(this.results(endMs, words, { isFinal: true, ...flags }));
    this.finalizedMs = endMs;
    if (words.length > 0 && this.setup.settings.utteranceEndMs !== undefined) this.owedUtteranceEndMs = words[words.length - 1]!.end * 1000;
  }

  /** Sends the owed `UtteranceEnd` once `utterance_end_ms` of audio has passed since the last final word. */
  private settleUtteranceEnd(nowMs: number): void {
    const gapMs = this.setup.settings.utteranceEndMs;
    if (this.owedUtteranceEndMs === undefined || gapMs === undefined) return;
    if (nowMs - this.owedUtteranceEndMs < gapMs) return;
    this.send(utteranceEndMessage(seconds(this.owedUtteranceEndMs)));
    this.owedUtteranceEndMs = undefined;
  }

  /** Finalize: the audio received so far is recognised to its end and answered with a final (`from_finalize`). */
  private async finalize(fromFinalize: boolean): Promise<void> {
    const rest = this.segmenter.takeCarry();
    if (this.utteranceOpen && rest.length > 0) await this.setup.recognizer.write(rest);
    const endMs = this.segmenter.scoredMs + (rest.length * 1000) / recognizerRate;
    this.segmenter.reset();
    if (endMs <= this.finalizedMs && !this.utteranceOpen) return;
    await this.final(endMs, { speechFinal: false, fromFinalize });
  }

  /** CloseStream: everything received is recognised, then `Metadata`, then a normal close. */
  private async closeStream(): Promise<void> {
    await this.recognize(await this.segmenter.push(this.input.flush()));
    await this.finalize(false);
    const chargeMicros = await this.settle();
    this.send(metadataMessage({ requestId: this.setup.id, durationMs: this.input.receivedMs, model: this.setup.settings.model, created: this.created, chargeMicros }));
    this.close(closeCodes.normal, '');
  }

  /** Bills the audio received (once: a later call resolves with the same debit). */
  private settle(): Promise<number | null> {
    const receivedMs = this.input.receivedMs;
    return this.setup.reservation.settle(receivedMs > 0 ? { kind: 'asr', seconds: receivedMs / 1000 } : null);
  }

  private results(endMs: number, words: ReturnType<typeof resultWords>, flags: { isFinal: boolean; speechFinal: boolean; fromFinalize: boolean }) {
    return resultsMessage({ requestId: this.setup.id, model: this.setup.settings.model, startMs: this.finalizedMs, endMs, words, ...flags });
  }

  private send(message: object): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(JSON.stringify(message));
  }
}
