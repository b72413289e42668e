import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { VoiceAgent, type AgentEvent, type VoiceAgentOptions } from '../../src/agent/index.js';
import { VirtualClock } from '../../src/pipeline/index.js';
import { FileTransport } from '../../src/transports/file/file-transport.js';
import { ChatCompletionDialogue, defineTool, type ChatCompletionDialogueOptions } from '../../plugins/index.js';
import { AmplitudeStt, callerTrack, EnergyVad, ToneTts } from '../support/agent-doubles.js';
import { callsTools, FakeOpenAiServer, fails, says, type Handler, type SeenRequest } from '../support/fake-openai-server.js';

const fake = new FakeOpenAiServer();
beforeAll(() => fake.start());
afterAll(() => fake.close());
afterEach(() => fake.reset());

/** Caller speech: "hello there" (5000), a 130 ms pause the low-latency mode takes as a stable interim, then louder, so the final is "please stop talking". */
const changesMind = [
  { atMs: 500, ms: 300, amplitude: 5000 },
  { atMs: 930, ms: 300, amplitude: 8000 },
];
const saysHello = [{ atMs: 500, ms: 400, amplitude: 5000 }];

async function call(dialogue: Partial<ChatCompletionDialogueOptions>, segments: { atMs: number; ms: number; amplitude: number }[], options: Partial<VoiceAgentOptions> = {}, totalMs = 6000) {
  const clock = new VirtualClock();
  const agent = new VoiceAgent({
    dialogue: new ChatCompletionDialogue({ baseUrl: fake.baseUrl, apiKey: 'sk-test', model: 'fake-model', retry: { retries: 0, minDelayMs: 1, maxDelayMs: 1 }, ...dialogue }),
    stt: new AmplitudeStt(),
    tts: new ToneTts(),
    vad: () => new EnergyVad(),
    mode: 'low-latency',
    clock,
    greet: false,
    ...options,
  });
  const transport = new FileTransport(callerTrack(totalMs, segments), clock, { maxTailMs: 60_000 });
  const session = agent.handle(transport);
  transport.settle = () => session.settled();
  const events: AgentEvent[] = [];
  session.events$.subscribe((event) => events.push(event));
  const summary = await session.summary;
  return { events, summary, session };
}

/** A model that transfers the call when asked anything, then says so once the tool answered. */
const transferringModel: Handler = (res, request: SeenRequest) => {
  const last = request.body.messages?.at(-1);
  if (last?.role === 'tool') return says('You are being transferred now.')(res, request);
  return callsTools([{ id: `call_${fake.seen.length}`, name: 'transfer_call', arguments: { department: 'sales' } }])(res, request);
};

describe('LLM turns in a call (fake OpenAI-compatible server)', () => {
  it('runs a side-effecting tool once per turn in low-latency mode when the interim and final transcripts differ', async () => {
    fake.fallback = transferringModel;
    const transfers: string[] = [];
    const transfer = defineTool({
      name: 'transfer_call',
      parameters: z.object({ department: z.string() }),
      run: ({ department }) => {
        transfers.push(department);
        return { transferred: true };
      },
    });
    const { events, summary } = await call({ tools: [transfer] }, changesMind);
    const asked = fake.seen.map((r) => r.body.messages?.find((m, i, all) => m.role === 'user' && i === all.length - 1)?.content);
    // The speculative reply asked about the interim, the kept one about the final.
    expect(asked).toContain('hello there');
    expect(asked).toContain('please stop talking');
    expect(transfers).toEqual(['sales']);
    const toolEvents = events.filter((e) => e.type === 'tool-call');
    expect(toolEvents).toHaveLength(1);
    expect(toolEvents[0]).toMatchObject({ name: 'transfer_call', kept: true, speculative: false, turn: 1, result: { transferred: true } });
    expect(summary.turns[0]).toMatchObject({ userText: 'please stop talking', agentText: 'You are being transferred now.' });
  });

  it('keeps a speculative reply when the final matches, running its side-effecting tool after the final, once', async () => {
    fake.fallback = transferringModel;
    let transfers = 0;
    const lookups: boolean[] = [];
    const tools = [
      { name: 'transfer_call', run: () => ++transfers },
      { name: 'lookup', speculative: true, run: () => lookups.push(true) },
    ];
    const { events, summary } = await call({ tools }, saysHello);
    expect(transfers).toBe(1);
    expect(summary.turns[0]!.metrics.preemptive).toBe(true);
    expect(events.filter((e) => e.type === 'tool-call')).toEqual([
      expect.objectContaining({ name: 'transfer_call', speculative: true, kept: true, reply: 1 }),
    ]);
  });

  it('reports a speculative-safe tool of a discarded reply as not kept', async () => {
    fake.fallback = (res, request) => {
      const last = request.body.messages?.at(-1);
      if (last?.role === 'tool') return says('Found it.')(res, request);
      return callsTools([{ id: `call_${fake.seen.length}`, name: 'lookup', arguments: { q: last?.content } }])(res, request);
    };
    const looked: unknown[] = [];
    const lookup = defineTool({ name: 'lookup', parameters: z.object({ q: z.string() }), speculative: true, run: ({ q }) => looked.push(q) });
    const { events } = await call({ tools: [lookup] }, changesMind);
    expect(looked).toEqual(['hello there', 'please stop talking']);
    const toolEvents = events.filter((e) => e.type === 'tool-call');
    expect(toolEvents.map((e) => [e.arguments.q, e.kept, e.speculative])).toEqual([
      ['hello there', false, true],
      ['please stop talking', true, false],
    ]);
  });

  it('sends the tool call and its result in the next turn\'s history, in order', async () => {
    fake.handlers.push(
      callsTools([{ id: 'call_book', name: 'book_table', arguments: { party: 2 } }], 'Let me book that.'),
      says('Booked for two.'),
      says('Anything else?'),
    );
    const book = defineTool({ name: 'book_table', parameters: z.object({ party: z.number() }), run: ({ party }) => ({ booking: `B-${party}` }) });
    await call({ tools: [book] }, [{ atMs: 500, ms: 400, amplitude: 5000 }, { atMs: 4000, ms: 400, amplitude: 8000 }], { mode: 'balanced' }, 9000);
    expect(fake.seen).toHaveLength(3);
    const next = fake.seen[2]!.body.messages!;
    expect(next.slice(1)).toEqual([
      { role: 'user', content: 'hello there' },
      { role: 'assistant', content: 'Let me book that.', tool_calls: [{ id: 'call_book', type: 'function', function: { name: 'book_table', arguments: '{"party":2}' } }] },
      { role: 'tool', tool_call_id: 'call_book', content: '{"booking":"B-2"}' },
      { role: 'assistant', content: 'Booked for two.' },
      { role: 'user', content: 'please stop talking' },
    ]);
  });

  it('an LLM outage gives the thinking line, then the configured hang-up', async () => {
    fake.fallback = fails(503, 'overloaded');
    const { events, summary } = await call(
      { retry: { retries: 1, minDelayMs: 1, maxDelayMs: 2 } },
      [{ atMs: 500, ms: 400, amplitude: 5000 }, { atMs: 5000, ms: 400, amplitude: 8000 }],
      { mode: 'balanced', failures: { hangupAfter: 2, hangupLine: 'We are closed, bye.', lines: { thinking: 'The assistant is unavailable.' } } },
      12_000,
    );
    expect(fake.seen).toHaveLength(4); // two turns, each tried twice
    expect(summary.turns.map((t) => t.agentText)).toEqual(['The assistant is unavailable.', 'We are closed, bye.']);
    expect(events.filter((e) => e.type === 'assistant-unavailable')).toEqual([
      { type: 'assistant-unavailable', stage: 'thinking', failures: 1, line: 'The assistant is unavailable.', hangup: false },
      { type: 'assistant-unavailable', stage: 'thinking', failures: 2, line: 'We are closed, bye.', hangup: true },
    ]);
    expect(summary.reason).toBe('agent ended the call');
  });

  it('every LLM request carries the call\'s trace id', async () => {
    fake.fallback = says('Hi.');
    const { session } = await call({}, saysHello);
    expect(fake.seen.length).toBeGreaterThan(0);
    for (const request of fake.seen) expect(request.headers.traceparent).toMatch(new RegExp(`^00-${session.traceId}-[0-9a-f]{16}-0[01]$`));
  });
});
