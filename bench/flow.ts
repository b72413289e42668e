/**
 * What a flow's structure costs per turn: the same caller turn answered by a plain LLM agent
 * (`ChatCompletionDialogue`) and by a flow in an LLM state (`FlowDialogue`: system prompt from the state's task,
 * the state's tools, `on_tool` checks), both against the local model double (test/support/fake-openai-server.ts)
 * answering at once. Per turn: respond() → the reply complete. Prints one JSON object.
 * Run: npx tsx bench/flow.ts [--quick]
 */
import os from 'node:os';
import { lastValueFrom, toArray } from 'rxjs';
import { percentile, type ConversationMessage, type Dialogue } from '../src/agent/index.js';
import { ChatCompletionDialogue, FlowDialogue, parseFlow } from '../plugins/index.js';
import { FakeOpenAiServer, says } from '../test/support/fake-openai-server.js';

const turns = process.argv.includes('--quick') ? 40 : 200;
const WARM_UP = 10;
const ANSWER = 'Thank you. What is the seven digit prescription number?';
const round = (value: number | undefined) => (value === undefined ? null : Math.round(value * 100) / 100);

const fake = await new FakeOpenAiServer().start();
fake.fallback = says(ANSWER);
const task = 'Ask for the seven-digit prescription number; when they give it, record it with fill_slots.';
const flow = parseFlow(
  `name: bench
start: ask
llm: { url: "${fake.baseUrl}", model: m, instructions: "You are the voice of a pharmacy line." }
slots: { rx: { type: digits, min: 7, max: 7 } }
tools: { transfer_call: { description: Transfers the call } }
global_tools: [transfer_call]
states:
  ask:
    llm: { task: "${task}", expect: { kind: digits, minLength: 7, maxLength: 7 } }
    collect: [rx]
    then: { goto: done }
    on_tool: { transfer_call: { end: transfer } }
  done: { say: Done. }
`,
  'bench.yaml',
);
const plain = () =>
  new ChatCompletionDialogue({ baseUrl: fake.baseUrl, apiKey: 'k', model: 'm', systemPrompt: `You are the voice of a pharmacy line.\n\n${task}`, tools: [{ name: 'transfer_call' }], expectTool: true });
const structured = () => new FlowDialogue(flow, { apiKey: 'k' });

/** Milliseconds per turn, turns taken in alternation between the two dialogues so that load drift hits both alike. */
async function measure(): Promise<{ plain: number[]; flow: number[] }> {
  const times = { plain: [] as number[], flow: [] as number[] };
  const history: ConversationMessage[] = [{ role: 'agent', text: 'Hello.' }];
  const dialogues: Record<'plain' | 'flow', Dialogue> = { plain: plain(), flow: structured() };
  for (let i = 0; i < WARM_UP + turns; i++) {
    for (const kind of ['plain', 'flow'] as const) {
      const started = performance.now();
      await lastValueFrom(dialogues[kind].respond({ history, userText: 'I would like a refill' }).pipe(toArray()));
      if (i >= WARM_UP) times[kind].push(performance.now() - started);
    }
  }
  return times;
}

const times = await measure();
await fake.close();
const p50 = { plain: percentile(times.plain, 50)!, flow: percentile(times.flow, 50)! };
process.stdout.write(
  `${JSON.stringify({
    bench: 'flow-structure-cost',
    turns,
    plain_llm_turn_ms: { p50: round(p50.plain), p95: round(percentile(times.plain, 95)) },
    flow_llm_state_turn_ms: { p50: round(p50.flow), p95: round(percentile(times.flow, 95)) },
    structure_cost_p50_ms: round(p50.flow - p50.plain),
    target_ms: 20,
    cpus: os.cpus().length,
    load: round(os.loadavg()[0]),
  })}\n`,
);
