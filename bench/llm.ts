/**
 * LLM turn benchmark against a local fake OpenAI-compatible server (test/support/fake-openai-server.ts): prints one JSON object.
 * - first token: respond() → first text delta through the dialogue; the openai SDK's stream alone; a bare fetch
 *   reading the first event (what the SDK and the dialogue cost on top); the model answering at once;
 * - voice-to-voice of LLM turns on a recorded caller (support-16k.wav) through the embedded speech stack, per mode,
 *   for a plain answer and for an answer that first calls a (speculative-safe) tool. The call runs on the virtual
 *   clock (`shoal talk --fast`): endpointing is counted on the call's clock, recognition, the LLM and synthesis on
 *   the wall clock, so a loaded machine cannot fall behind real time and pile utterances up.
 * The fake model streams a word every `WORD_GAP_MS` ms with no thinking time, so the figures are the framework's and
 * the SDK's share, not a real model's. Run: npx tsx bench/llm.ts [--quick]
 */
import { readFileSync } from 'node:fs';
import OpenAI from 'openai';
import os from 'node:os';
import { lastValueFrom, take } from 'rxjs';
import { createEmbeddedAgentStack, percentile, type AgentMode, type TurnReport } from '../src/agent/index.js';
import { decodeCall, runFileCall } from '../src/transports/file/file-call.js';
import { ChatCompletionDialogue, type ChatTool } from '../plugins/index.js';
import { callsTools, FakeOpenAiServer, says, type Handler } from '../test/support/fake-openai-server.js';

const quick = process.argv.includes('--quick');
const WORD_GAP_MS = 15;
/** Requests before the measured ones: connection, JIT. */
const WARM_UP = 10;
const ANSWER = 'Your balance is forty two dollars. Is there anything else I can help you with today?';
const round = (value: number | undefined) => (value === undefined ? null : Math.round(value * 100) / 100);
const stats = (values: number[]) => ({ p50_ms: round(percentile(values, 50)), p95_ms: round(percentile(values, 95)), n: values.length });

const fake = await new FakeOpenAiServer().start();
const answering: Handler = says(ANSWER, WORD_GAP_MS);
/** Calls `lookup_account` first, then answers once the tool result is in. */
const lookingUp: Handler = (res, request) =>
  request.body.messages?.at(-1)?.role === 'tool' ? answering(res, request) : callsTools([{ id: `call_${fake.seen.length}`, name: 'lookup_account', arguments: {} }])(res, request);
const lookupTool: ChatTool = { name: 'lookup_account', speculative: true, run: () => ({ balance: 42 }) };
const dialogue = (tools: ChatTool[] = []) => new ChatCompletionDialogue({ baseUrl: fake.baseUrl, apiKey: 'sk-bench', model: 'fake', tools });

async function firstTokenDialogue(runs: number): Promise<number[]> {
  fake.fallback = answering;
  const d = dialogue();
  const times: number[] = [];
  for (let i = 0; i < runs + WARM_UP; i++) {
    const started = performance.now();
    await lastValueFrom(d.respond({ history: [], userText: 'what is my balance' }).pipe(take(1)));
    if (i >= WARM_UP) times.push(performance.now() - started);
  }
  return times;
}

async function firstTokenSdkAlone(runs: number): Promise<number[]> {
  fake.fallback = answering;
  const client = new OpenAI({ baseURL: fake.baseUrl, apiKey: 'sk-bench', maxRetries: 0 });
  const times: number[] = [];
  for (let i = 0; i < runs + WARM_UP; i++) {
    const started = performance.now();
    const stream = await client.chat.completions.create({ model: 'fake', stream: true, messages: [{ role: 'user', content: 'what is my balance' }] });
    for await (const chunk of stream) {
      if (chunk.choices[0]?.delta?.content) break;
    }
    if (i >= WARM_UP) times.push(performance.now() - started);
  }
  return times;
}

async function firstTokenFetch(runs: number): Promise<number[]> {
  fake.fallback = answering;
  const times: number[] = [];
  for (let i = 0; i < runs + WARM_UP; i++) {
    const started = performance.now();
    const response = await fetch(`${fake.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' },
      body: JSON.stringify({ model: 'fake', stream: true, messages: [{ role: 'user', content: 'what is my balance' }] }),
    });
    const reader = response.body!.getReader();
    let buffered = '';
    while (!buffered.includes('"content"')) buffered += new TextDecoder().decode((await reader.read()).value);
    if (i >= WARM_UP) times.push(performance.now() - started);
    await reader.cancel();
  }
  return times;
}

async function voiceToVoice(mode: AgentMode, withTool: boolean) {
  fake.fallback = withTool ? lookingUp : answering;
  const stack = await createEmbeddedAgentStack({ mode });
  const turns: TurnReport[] = [];
  try {
    const caller = await decodeCall(readFileSync(new URL('../test/fixtures/calls/support-16k.wav', import.meta.url)));
    const { summary } = await runFileCall(stack.agentFor(dialogue(withTool ? [lookupTool] : [])), caller, { fast: true });
    turns.push(...summary.turns.filter((t) => t.userText !== ''));
  } finally {
    await stack.close();
  }
  const figures = (key: 'voiceToVoiceMs' | 'dialogueFirstTokenMs' | 'frameworkOverheadMs') =>
    stats(turns.map((t) => t.metrics[key]).filter((v): v is number => v !== undefined));
  return {
    turns: turns.length,
    preemptive_turns: turns.filter((t) => t.metrics.preemptive).length,
    voice_to_voice: figures('voiceToVoiceMs'),
    dialogue_first_token: figures('dialogueFirstTokenMs'),
    framework_overhead: figures('frameworkOverheadMs'),
  };
}

try {
  const runs = quick ? 10 : 40;
  const result: Record<string, unknown> = {
    bench: 'llm',
    loadavg_before: os.loadavg().map((v) => round(v)),
    word_gap_ms: WORD_GAP_MS,
    first_token_dialogue: stats(await firstTokenDialogue(runs)),
    first_token_sdk_alone: stats(await firstTokenSdkAlone(runs)),
    first_token_bare_fetch: stats(await firstTokenFetch(runs)),
  };
  const modes: AgentMode[] = ['low-latency', 'balanced'];
  for (const mode of modes) {
    result[`llm_turn_${mode}`] = await voiceToVoice(mode, false);
    result[`llm_tool_turn_${mode}`] = await voiceToVoice(mode, true);
  }
  result.loadavg_after = os.loadavg().map((v) => round(v));
  console.log(JSON.stringify(result));
} finally {
  await fake.close();
}
