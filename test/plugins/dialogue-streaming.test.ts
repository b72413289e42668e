import { describe, expect, it, vi } from 'vitest';
import { lastValueFrom, toArray } from 'rxjs';
import { EchoDialogue, parseScript, ScriptedDialogue, wordDeltas } from '../../plugins/index.js';
import type { Dialogue, DialogueOutput } from '../../src/agent/index.js';

const longReply = 'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen';
const script = parseScript(`
name: talker
start: a
intents: { talk: { keywords: [talk] }, bye: { keywords: [bye] } }
states:
  a:
    on:
      - { intent: talk, reply: "${longReply}" }
      - { intent: bye, reply: See you., end: true }
`, 'talker.yaml');

const texts = (outputs: DialogueOutput[]) => outputs.flatMap((o) => (o.type === 'text' ? [o.delta] : []));

/** Subscribes, unsubscribes after `stopAfter` deltas, then waits to see whether anything else arrives. */
async function cancelAfter(dialogue: Dialogue, userText: string, stopAfter: number) {
  const received: DialogueOutput[] = [];
  let completed = false;
  await new Promise<void>((resolve) => {
    const subscription = dialogue.respond({ history: [], userText }).subscribe({
      next: (output) => {
        received.push(output);
        if (received.length === stopAfter) {
          subscription.unsubscribe();
          resolve();
        }
      },
      complete: () => {
        completed = true;
        resolve();
      },
    });
  });
  const atCancel = received.length;
  await new Promise((r) => setTimeout(r, 50));
  return { atCancel, after: received.length, completed };
}

describe('streamed replies', () => {
  it('splits a reply into word deltas that join back into the text', () => {
    expect(wordDeltas('Hello there,  how are you?')).toEqual(['Hello', ' there,', ' how', ' are', ' you?']);
    expect(wordDeltas('Hello there,  how are you?').join('')).toBe('Hello there, how are you?');
  });

  it('scripted replies arrive word by word, asynchronously, then complete', async () => {
    const dialogue = new ScriptedDialogue(script);
    let synchronous = 0;
    const outputs: DialogueOutput[] = [];
    const done = new Promise<void>((resolve) => {
      dialogue.respond({ history: [], userText: "let's talk" }).subscribe({ next: (o) => outputs.push(o), complete: resolve });
      synchronous = outputs.length;
    });
    await done;
    expect(synchronous).toBe(0);
    expect(texts(outputs)).toEqual(wordDeltas(longReply));
  });

  it('paces words wordIntervalMs apart, the first one at once, so speech can start early', () => {
    vi.useFakeTimers();
    try {
      const dialogue = new ScriptedDialogue(script, { wordIntervalMs: 20 });
      const outputs: DialogueOutput[] = [];
      let completed = false;
      dialogue.respond({ history: [], userText: 'talk' }).subscribe({ next: (o) => outputs.push(o), complete: () => (completed = true) });
      vi.advanceTimersByTime(1);
      expect(texts(outputs)).toEqual(['one']);
      vi.advanceTimersByTime(20);
      expect(texts(outputs)).toEqual(['one', ' two']);
      expect(completed).toBe(false);
      vi.advanceTimersByTime(20 * 15);
      expect(texts(outputs).join('')).toBe(longReply);
      expect(completed).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('the end-call signal comes after the last word', async () => {
    const outputs = await lastValueFrom(new ScriptedDialogue(script).respond({ history: [], userText: 'bye' }).pipe(toArray()));
    expect(outputs).toEqual([{ type: 'text', delta: 'See' }, { type: 'text', delta: ' you.' }, { type: 'end-call', reason: 'script ended the call' }]);
  });
});

describe('cancellation (barge-in)', () => {
  it('unsubscribing from a scripted reply stops further deltas', async () => {
    const result = await cancelAfter(new ScriptedDialogue(script), 'talk', 3);
    expect(result.atCancel).toBe(3);
    expect(result.after).toBe(3);
    expect(result.completed).toBe(false);
  });

  it('unsubscribing from an echo reply stops further deltas', async () => {
    const result = await cancelAfter(new EchoDialogue(), longReply, 2);
    expect(result).toEqual({ atCancel: 2, after: 2, completed: false });
  });
});

describe('echo dialogue', () => {
  it('repeats the caller word by word after its prefix', async () => {
    const outputs = await lastValueFrom(new EchoDialogue().respond({ history: [], userText: 'a table for two' }).pipe(toArray()));
    expect(texts(outputs)).toEqual(['You', ' said:', ' a', ' table', ' for', ' two']);
  });

  it('ends the call after echoing goodbye, and greets and reprompts', async () => {
    const echo = new EchoDialogue({ prefix: '' });
    const outputs = await lastValueFrom(echo.respond({ history: [], userText: 'Goodbye.' }).pipe(toArray()));
    expect(texts(outputs).join('')).toBe('Goodbye.');
    expect(outputs.at(-1)?.type).toBe('end-call');
    expect(echo.greeting()).toMatch(/echo/);
    expect(echo.reprompt()).toMatch(/still there/);
  });
});
