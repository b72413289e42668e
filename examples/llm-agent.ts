/**
 * An LLM voice agent: instructions, typed tools (one that only looks things up, one that books), a greeting and
 * end_call, answering a recorded caller. Point it at any OpenAI-compatible server, e.g. a local one:
 *   llama-server -m model.gguf --port 8080 --jinja          # llama.cpp (tools need --jinja)
 *   ollama serve                                            # Ollama: LLM_URL=http://127.0.0.1:11434/v1 LLM_MODEL=llama3.2
 *   vllm serve Qwen/Qwen2.5-1.5B-Instruct --enable-auto-tool-choice --tool-call-parser hermes
 * then
 *   LLM_URL=http://127.0.0.1:8080/v1 [LLM_MODEL=name] [OPENAI_API_KEY=key] npx tsx examples/llm-agent.ts [call.wav]
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { createEmbeddedAgentStack } from 'shoal/agent';
import { decodeCall, runFileCall } from 'shoal/transports';
import { ChatCompletionDialogue, defineTool } from 'shoal/plugins';

const baseUrl = process.env.LLM_URL;
if (!baseUrl) {
  process.stderr.write('Set LLM_URL to an OpenAI-compatible base URL, e.g. LLM_URL=http://127.0.0.1:8080/v1 (llama.cpp, Ollama, vLLM, OpenAI).\n');
  process.exit(2);
}

const bookings = new Map<string, { party: number; time: string; name: string }>();

const checkAvailability = defineTool({
  name: 'check_availability',
  description: 'Whether a table is free at a time tonight.',
  parameters: z.object({ party: z.number().int().min(1).max(12), time: z.string().describe('e.g. "7:30 pm"') }),
  speculative: true, // a lookup: safe to run before the caller's turn is final
  run: ({ party, time }) => ({ available: party <= 6, time }),
});

const bookTable = defineTool({
  name: 'book_table',
  description: 'Books a table tonight. Only call it once the caller has confirmed the party size, time and name.',
  parameters: z.object({ party: z.number().int().min(1).max(12), time: z.string(), name: z.string().min(1) }),
  // Not speculative (the default): it runs only once the caller's turn is final, so never twice.
  run: ({ party, time, name }, { callId, signal }) => {
    if (signal.aborted) throw new Error('the caller interrupted');
    const reference = `B${bookings.size + 101}`;
    bookings.set(reference, { party, time, name });
    return { reference, callId };
  },
});

const dialogue = new ChatCompletionDialogue({
  baseUrl,
  model: process.env.LLM_MODEL ?? 'gpt-4o-mini',
  systemPrompt:
    'You are the receptionist of Luigi\'s, a small Italian restaurant, on the phone. Speak in one or two short sentences, ' +
    'without lists or markdown. You can check availability and book tables for tonight; confirm the details before booking.',
  greeting: 'Hello, Luigi\'s, how can I help?',
  tools: [checkAvailability, bookTable],
  endCallTool: true,
  expectTool: true,
  onEvent: (event) => console.log(`llm: ${JSON.stringify(event)}`),
});

const stack = await createEmbeddedAgentStack({ mode: 'low-latency' });
try {
  const file = process.argv[2] ?? new URL('../test/fixtures/calls/booking-16k.wav', import.meta.url);
  const caller = await decodeCall(await readFile(file));
  const { summary } = await runFileCall(stack.agentFor(dialogue), caller, {
    fast: true,
    onTurn: (turn) => console.log(`caller: ${turn.user_text}\nagent:  ${turn.agent_text}`),
    onEvent: (event) => {
      if (event.type === 'tool-call' && event.kept) console.log(`tool:   ${event.name} ${JSON.stringify(event.arguments)} -> ${JSON.stringify(event.result ?? event.error)}`);
      if (event.type === 'error') console.log(`error:  ${event.stage}: ${event.message}`);
    },
  });
  console.log(`${summary.turns.length} turns, ended: ${summary.reason}; bookings: ${JSON.stringify([...bookings])}`);
} finally {
  await stack.close();
}
