/**
 * A dialogue is an Observable of text deltas: this one answers with the time, word by word,
 * and ends the call when the caller says goodbye. Runs on a recorded call.
 *   npx tsx examples/custom-dialogue.ts
 */
import { readFile } from 'node:fs/promises';
import { from, concatMap, delay, of } from 'rxjs';
import { createEmbeddedAgentStack, type Dialogue, type DialogueOutput } from 'shoal/agent';
import { decodeCall, runFileCall } from 'shoal/transports';

const clockDialogue: Dialogue = {
  name: 'clock',
  greeting: () => 'Hi, I tell the time.',
  respond: ({ userText }) => {
    if (/\b(goodbye|bye)\b/.test(userText)) {
      return from<DialogueOutput[]>([{ type: 'text', delta: 'Goodbye!' }, { type: 'end-call' }]);
    }
    const words = `It is ${new Date().toLocaleTimeString('en-US', { hour: 'numeric', minute: '2-digit' })}.`.split(' ');
    return from(words).pipe(concatMap((word, i) => of<DialogueOutput>({ type: 'text', delta: (i ? ' ' : '') + word }).pipe(delay(5))));
  },
};

const stack = await createEmbeddedAgentStack({ mode: 'low-latency' });
try {
  const caller = await decodeCall(await readFile(new URL('../test/fixtures/calls/booking-16k.wav', import.meta.url)));
  const { summary } = await runFileCall(stack.agentFor(clockDialogue), caller, {
    fast: true,
    onTurn: (turn) => console.log(JSON.stringify({ user: turn.userText, agent: turn.agentText, metrics: turn.metrics })),
  });
  console.log(`call ended: ${summary.reason}`);
} finally {
  await stack.close();
}
