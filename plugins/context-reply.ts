import { Observable } from 'rxjs';
import { ProviderError, type SpokenAudio } from '../src/agent/index.js';
import type { ContextSocket } from './context-socket.js';

type Message = Record<string, unknown>;

/** What one reply's context says to a streaming synthesiser and how it reads the answers. */
export interface ContextProtocol {
  /** Messages that open the context, before any text. */
  begin(): Message[];
  /** Messages carrying one piece of the reply's text. */
  text(piece: string): Message[];
  /** Messages that end the reply's text (the rest is spoken, then the provider says it is done). */
  end(): Message[];
  /** Messages that stop the context at once (barge-in). */
  cancel(): Message[];
  /** Reads a message of this context: audio to hand on, the reply done, or the provider's error. */
  receive(message: Message): { audio?: SpokenAudio[]; done?: boolean; error?: ProviderError };
}

/**
 * A reply spoken on its own context of a shared socket: text pieces are sent as they come (held until the socket is
 * open), audio is handed on as it arrives. Unsubscribing before the provider is done sends the protocol's cancel.
 * No audio within `firstAudioTimeoutMs` of the end of the text is a `timeout`.
 */
export function speakOnContext(socket: ContextSocket, contextId: string, protocol: ContextProtocol, text$: Observable<string>, options: { provider: string; firstAudioTimeoutMs: number }): Observable<SpokenAudio> {
  return new Observable<SpokenAudio>((subscriber) => {
    const queued: Message[] = [...protocol.begin()];
    let send: ((message: Message) => void) | undefined;
    let finished = false;
    let heard = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const post = (messages: Message[]) => {
      if (send) messages.forEach(send);
      else queued.push(...messages);
    };
    const stop = () => {
      finished = true;
      if (timer !== undefined) clearTimeout(timer);
      socket.detach(contextId);
    };
    const fail = (error: ProviderError) => {
      if (finished) return;
      stop();
      subscriber.error(error);
    };
    socket
      .attach(contextId, {
        message: (message) => {
          if (finished) return;
          const { audio, done, error } = protocol.receive(message);
          if (error) {
            fail(error);
            return;
          }
          for (const piece of audio ?? []) {
            heard ||= piece.frame.samples.length > 0;
            subscriber.next(piece);
          }
          if (done) {
            stop();
            subscriber.complete();
          }
        },
        fail,
      })
      .then(
        (sender) => {
          if (finished) return;
          send = sender;
          queued.splice(0).forEach(sender);
        },
        (error: unknown) => fail(error instanceof ProviderError ? error : new ProviderError(options.provider, 'unreachable', String(error), { cause: error })),
      );
    const text = text$.subscribe({
      next: (piece) => {
        if (!finished && piece.trim()) post(protocol.text(piece));
      },
      error: (error: unknown) => {
        if (finished) return;
        post(protocol.cancel());
        stop();
        subscriber.error(error);
      },
      complete: () => {
        if (finished) return;
        post(protocol.end());
        timer = setTimeout(() => {
          if (!heard) fail(new ProviderError(options.provider, 'timeout', `no audio within ${options.firstAudioTimeoutMs} ms of the reply's end`));
        }, options.firstAudioTimeoutMs);
      },
    });
    return () => {
      text.unsubscribe();
      if (finished) return;
      if (send) protocol.cancel().forEach(send);
      stop();
    };
  });
}
