import { defer, interval, Observable, Subject, tap, type Subscription } from 'rxjs';
import { playedText, wrappedTransport, type AgentEvent, type SpokenWord, type TextToSpeech, type Transport } from '../../agent/index.js';
import type { AudioFrame } from '../../audio/index.js';

/** One thing the agent says, as synthesised: its text pieces, word times (when the engine gives them) and audio length. */
interface SpokenReply {
  text: string;
  words: SpokenWord[];
  audioMs: number;
  synthesized: boolean;
  turn: number | undefined;
  caption: string;
}

/** Where a synthesised frame's samples sit in its reply (frames are found again by their sample memory). */
interface AudioSpan {
  byteOffset: number;
  byteLength: number;
  reply: SpokenReply;
  offsetMs: number;
  sampleRate: number;
}

/** A stretch of reply audio handed to the transport, playing from `startAt` (wall clock, ms) for `durationMs`. */
interface PlayingSpan {
  reply: SpokenReply;
  offsetMs: number;
  durationMs: number;
  startAt: number;
}

export interface AgentCaption {
  turn: number;
  /** The words of the turn played so far. */
  text: string;
}

/**
 * The agent's words as they are played: wraps the call's speech (to learn each reply's text, word times and
 * audio) and its transport (to see which audio is handed out for playout, and when it will have played), and
 * emits the text heard so far. Replies synthesised but never played (a cancelled preemptive reply) never show.
 */
export class SpokenCaptions {
  private readonly spans = new WeakMap<ArrayBufferLike, AudioSpan[]>();
  private readonly captions = new Subject<AgentCaption>();
  private speakingTurn: number | undefined;
  private playing: PlayingSpan[] = [];
  private queueEndAt = 0;
  private ticks: Subscription | undefined;
  readonly captions$: Observable<AgentCaption> = this.captions.asObservable();

  /** Speech whose output is remembered, so that its playout can be recognised. */
  speech(inner: TextToSpeech): TextToSpeech {
    return {
      prepare: inner.prepare ? (request) => inner.prepare!(request) : undefined,
      speak: (request) =>
        defer(() => {
          const reply: SpokenReply = { text: '', words: [], audioMs: 0, synthesized: false, turn: undefined, caption: '' };
          const text$ = request.text$.pipe(tap((piece) => (reply.text = reply.text ? `${reply.text} ${piece}` : piece)));
          return inner.speak({ ...request, text$ }).pipe(
            tap({
              next: ({ frame, words }) => {
                this.remember(frame, reply);
                if (words) reply.words.push(...words);
                reply.audioMs += (frame.samples.length * 1000) / frame.sampleRate;
              },
              complete: () => (reply.synthesized = true),
            }),
          );
        }),
    };
  }

  /** The transport, with `play()` noting how far each reply has been handed out. */
  transport(inner: Transport): Transport {
    return wrappedTransport(inner, {
      play: (frame) => {
        this.played(frame);
        inner.play(frame);
      },
      clear: () => {
        this.playing = [];
        this.queueEndAt = 0;
        inner.clear();
      },
    });
  }

  /** Follows the agent's turns: a reply whose audio starts playing belongs to the turn that started speaking. */
  follow(events$: Observable<AgentEvent>): void {
    events$.subscribe({
      next: (event) => {
        if (event.type === 'agent-started-speaking') this.speakingTurn = event.turn;
      },
      complete: () => {
        this.ticks?.unsubscribe();
        this.captions.complete();
      },
    });
    this.ticks = interval(captionTickMs).subscribe(() => this.reveal());
  }

  private remember(frame: AudioFrame, reply: SpokenReply): void {
    const buffer = frame.samples.buffer;
    const list = this.spans.get(buffer) ?? [];
    list.push({ byteOffset: frame.samples.byteOffset, byteLength: frame.samples.byteLength, reply, offsetMs: reply.audioMs, sampleRate: frame.sampleRate });
    this.spans.set(buffer, list);
  }

  private played(frame: AudioFrame): void {
    const offset = frame.samples.byteOffset;
    const span = this.spans.get(frame.samples.buffer)?.find((s) => offset >= s.byteOffset && offset < s.byteOffset + s.byteLength);
    if (!span) return;
    span.reply.turn ??= this.speakingTurn;
    const durationMs = (frame.samples.length * 1000) / frame.sampleRate;
    const startAt = Math.max(performance.now(), this.queueEndAt);
    this.queueEndAt = startAt + durationMs;
    const offsetMs = span.offsetMs + ((offset - span.byteOffset) / 2 / span.sampleRate) * 1000;
    this.playing.push({ reply: span.reply, offsetMs, durationMs, startAt });
  }

  private reveal(): void {
    const now = performance.now();
    for (const span of this.playing) {
      const { reply } = span;
      if (span.startAt > now || reply.turn === undefined) continue;
      const positionMs = span.offsetMs + Math.min(span.durationMs, now - span.startAt);
      const totalMs = reply.synthesized ? reply.audioMs : Math.max(reply.audioMs, positionMs + 1);
      const text = playedText(reply.text, positionMs, totalMs, reply.words);
      if (text && text !== reply.caption) {
        reply.caption = text;
        this.captions.next({ turn: reply.turn, text });
      }
    }
    this.playing = this.playing.filter((span) => span.startAt + span.durationMs > now);
  }
}

/** How often the played-out position is turned into captions. */
const captionTickMs = 100;
