import { Observable } from 'rxjs';
import type { DialogueOutput } from '../src/agent/index.js';

/** Splits a reply into word deltas: the first bare, each next one with its leading space, so `join('')` gives the text back. */
export function wordDeltas(text: string): string[] {
  const words = text.trim().split(/\s+/).filter((word) => word.length > 0);
  return words.map((word, index) => (index === 0 ? word : ` ${word}`));
}

/**
 * Emits `outputs` one at a time, each on its own macrotask (or `intervalMs` apart), so a consumer can start
 * speaking after the first word and unsubscribing (barge-in) stops the rest from being emitted.
 */
export function streamOutputs(outputs: readonly DialogueOutput[], intervalMs = 0): Observable<DialogueOutput> {
  return new Observable<DialogueOutput>((subscriber) => {
    let index = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let immediate: ReturnType<typeof setImmediate> | undefined;
    const schedule = (delayMs: number): void => {
      if (delayMs > 0) timer = setTimeout(emitNext, delayMs);
      else immediate = setImmediate(emitNext);
    };
    const emitNext = (): void => {
      timer = undefined;
      immediate = undefined;
      if (subscriber.closed) return;
      if (index >= outputs.length) {
        subscriber.complete();
        return;
      }
      subscriber.next(outputs[index++]!);
      schedule(intervalMs);
    };
    schedule(0);
    return () => {
      if (timer !== undefined) clearTimeout(timer);
      if (immediate !== undefined) clearImmediate(immediate);
    };
  });
}

/** Text deltas for `text`, word by word, as dialogue outputs. */
export function textOutputs(text: string): DialogueOutput[] {
  return wordDeltas(text).map((delta) => ({ type: 'text', delta }));
}
