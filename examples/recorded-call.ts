/**
 * Plays a recorded caller into the receptionist on the embedded stack and prints the conversation.
 *   npx tsx examples/recorded-call.ts [CALL.wav] [low-latency|balanced]
 */
import { readFile } from 'node:fs/promises';
import { createEmbeddedAgentStack, type AgentMode } from 'shoal/agent';
import { decodeCall, runFileCall } from 'shoal/transports';
import { createDialogue } from 'shoal/agents';

const file = process.argv[2] ?? new URL('../test/fixtures/calls/booking-16k.wav', import.meta.url).pathname;
const mode = (process.argv[3] ?? 'balanced') as AgentMode;

const stack = await createEmbeddedAgentStack({ mode });
try {
  const caller = await decodeCall(await readFile(file));
  const { summary } = await runFileCall(stack.agentFor(createDialogue('receptionist')), caller, {
    fast: true,
    onEvent: (event) => {
      if (event.type === 'transcript' && event.final) console.log(`caller: ${event.text}`);
    },
    onTurn: (report) => console.log(`agent:  ${report.agentText}${report.interrupted ? ' (interrupted)' : ''}`),
  });
  console.log(`${summary.turns.length} turns, ended: ${summary.reason}`);
} finally {
  await stack.close();
}
