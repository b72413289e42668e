import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeMuLaw } from '../../src/audio/index.js';
import { defineScenario, ScenarioRunner, type Scenario, type ScenarioResult } from '../../src/testing/index.js';
import { checkCall } from '../../src/testing/checks.js';
import type { ScenarioSpec, StepExpectation, CallExpectation } from '../../src/testing/schema.js';
import { callsTools, FakeOpenAiServer, says } from '../support/fake-openai-server.js';
import { EchoDialogue } from '../../plugins/index.js';
import { createEmbeddedAgentStack, type CallSession, type EmbeddedAgentStack, type Transport, type VoiceAgent } from '../../src/agent/index.js';

// One stack for the file; the calls are short and the checks are replayed against their logs.
let stack: EmbeddedAgentStack;
let runner: ScenarioRunner;
beforeAll(async () => {
  stack = await createEmbeddedAgentStack();
  runner = await ScenarioRunner.open({ stack });
}, 120_000);
afterAll(async () => {
  await runner?.close();
  await stack?.close();
});

const receptionist: ScenarioSpec = {
  name: 'hours, a human, goodbye',
  agent: 'receptionist',
  steps: [
    { expect: { says: '/harbour kitchen/i' } },
    { say: 'when are you open', expect: { says: 'noon', within_ms: 3000, heard: 'open' } },
    { say: 'can i speak to a human', expect: { tool: { name: 'transfer_call', args: { to: 'front desk' } } } },
    { silence_ms: 1200, expect: { no_reply_ms: 1000 } },
    { say: 'goodbye', expect: { action: 'transfer' } },
  ],
  expect: { ends_with: 'transfer', one_trace: true, turns: 4, max_v2v_p95_ms: 3000, judge: 'the agent is polite' },
};

let call: ScenarioResult;
let scenario: Scenario;

/** The checks of `scenario` with one step's (or the call's) expectation replaced, against the same call. */
function failuresWith(step: number | 'call', expectation: StepExpectation | CallExpectation): string[] {
  const variant: Scenario = {
    ...scenario,
    steps: scenario.steps.map((each, index) => (index === step ? { ...each, expect: expectation as StepExpectation } : { ...each, expect: {} })),
    expect: step === 'call' ? (expectation as CallExpectation) : {},
  };
  return checkCall(variant, call.log!).failures.map((failure) => `${failure.step ?? 'call'}: ${failure.message}`);
}

describe('a scenario on the phone line', () => {
  beforeAll(async () => {
    scenario = defineScenario(receptionist);
    call = await runner.run(scenario);
  }, 120_000);

  it('passes when the agent does what the steps expect, and times every reply', () => {
    expect(call.failures).toEqual([]);
    expect(call.passed).toBe(true);
    expect(call.turns).toBe(4);
    expect(call.v2v.map((entry) => entry.step)).toEqual([2, 3, 5]);
    for (const { ms } of call.v2v) expect(ms).toBeGreaterThan(100);
    expect(call.skipped).toEqual([{ criterion: 'the agent is polite' }]);
    expect(call.durationMs).toBeGreaterThan(8000);
  });

  it('carries the call as mu-law media-stream messages both ways', () => {
    const log = call.log!;
    expect(log.sampleRate).toBe(8000);
    expect(log.sentMessages['media']).toBeGreaterThan(100);
    expect(log.sentMessages['mark']).toBeGreaterThan(3);
    // What the caller heard went through G.711: every sample is one of mu-law's 256 levels.
    const levels = new Set(decodeMuLaw(Uint8Array.from({ length: 256 }, (_, i) => i)));
    const heard = log.agentTrack.filter((sample) => sample !== 0);
    expect(heard.length).toBeGreaterThan(8000);
    expect(heard.every((sample) => levels.has(sample))).toBe(true);
  });

  it('says, not_says: substring or /regex/, pass and fail', () => {
    expect(failuresWith(1, { says: 'NOON until eleven' })).toEqual([]);
    expect(failuresWith(1, { says: '/open every day/' })).toEqual([]);
    expect(failuresWith(1, { says: ['noon', 'eleven'] })).toEqual([]);
    expect(failuresWith(1, { says: 'midnight' })).toEqual([`2: says midnight: the agent said "We're open every day from noon until eleven p m."`]);
    expect(failuresWith(1, { says: '/^noon/' })).toHaveLength(1);
    expect(failuresWith(1, { not_says: 'midnight' })).toEqual([]);
    expect(failuresWith(1, { not_says: '/eleven/i' })).toHaveLength(1);
  });

  it('within_ms: voice to voice on the call clock', () => {
    const v2v = call.v2v.find((entry) => entry.step === 2)!.ms;
    expect(failuresWith(1, { within_ms: Math.ceil(v2v) })).toEqual([]);
    expect(failuresWith(1, { within_ms: Math.floor(v2v) - 1 })).toEqual([`2: within_ms ${Math.floor(v2v) - 1}: the agent answered after ${Math.round(v2v)} ms`]);
    expect(failuresWith(0, { within_ms: 5000 })).toEqual(['1: within_ms 5000: the step has no caller voice to time from']);
  });

  it('tool and not_tool: the name, and the arguments as a subset', () => {
    expect(failuresWith(2, { tool: { name: 'transfer_call' } })).toEqual([]);
    expect(failuresWith(2, { tool: { name: 'transfer_call', args: { to: 'Front Desk' } } })).toEqual([]);
    expect(failuresWith(2, { tool: { name: 'transfer_call', args: { to: 'kitchen' } } })).toEqual(['3: tool transfer_call with {"to":"kitchen"}: called with {"to":"front desk"}']);
    expect(failuresWith(2, { tool: { name: 'book_table' } })).toEqual(['3: tool book_table: the agent called transfer_call']);
    expect(failuresWith(1, { tool: { name: 'transfer_call' } })).toEqual(['2: tool transfer_call: no tool was called']);
    expect(failuresWith(1, { not_tool: 'transfer_call' })).toEqual([]);
    expect(failuresWith(2, { not_tool: 'transfer_call' })).toEqual(['3: not_tool transfer_call: the agent called it']);
  });

  it('action: end_call or transfer, where the agent ended the call', () => {
    expect(failuresWith(4, { action: { type: 'transfer', to: 'front desk' } })).toEqual([]);
    expect(failuresWith(4, { action: { type: 'transfer', to: 'billing' } })).toEqual(['5: action transfer to billing: transferred to "front desk"']);
    expect(failuresWith(4, { action: 'end_call' })).toEqual(['5: action end_call: the agent transferred the call']);
    expect(failuresWith(1, { action: 'transfer' })).toEqual(['2: action transfer: the agent ended the call elsewhere (caller said goodbye)']);
  });

  it('heard: what the recogniser heard', () => {
    expect(failuresWith(2, { heard: '/speak to a human/' })).toEqual([]);
    expect(failuresWith(2, { heard: 'table' })).toEqual(['3: heard table: the agent heard "can i speak to a human"']);
  });

  it('no_reply_ms: silence from the agent for that long', () => {
    expect(failuresWith(3, { no_reply_ms: 1000 })).toEqual([]);
    expect(failuresWith(1, { no_reply_ms: 3000 })).toEqual([expect.stringMatching(/^2: no_reply_ms 3000: the agent spoke after \d+ ms$/)]);
  });

  it('the whole call: turns, ends_with, max_v2v_p95_ms, one_trace', () => {
    expect(failuresWith('call', { turns: { min: 3, max: 4 }, ends_with: 'transfer', one_trace: true })).toEqual([]);
    expect(failuresWith('call', { turns: 6 })).toEqual(['call: turns 6: the call had 4']);
    expect(failuresWith('call', { turns: { max: 2 } })).toEqual(['call: turns 0..2: the call had 4']);
    expect(failuresWith('call', { ends_with: 'end_call' })).toEqual(['call: ends_with end_call: the call ended with transfer (caller said goodbye)']);
    const p95 = Math.max(...call.v2v.map((entry) => entry.ms));
    expect(failuresWith('call', { max_v2v_p95_ms: Math.ceil(p95) })).toEqual([]);
    expect(failuresWith('call', { max_v2v_p95_ms: 50 })).toEqual([`call: max_v2v_p95_ms 50: p95 was ${Math.round(p95)} ms`]);
    const carried = call.log!.traceparent.split('-')[1]!;
    expect(Object.keys(call.log!.traces!)).toEqual([carried]);
    expect(call.log!.traces![carried]).toBeGreaterThan(8);
    const stray = { ...call.log!, traces: { ...call.log!.traces, '4bf92f3577b34da6a3ce929d0e0e4736': 2 } };
    expect(checkCall({ ...scenario, expect: { one_trace: true } }, stray).failures).toEqual([
      { message: "one_trace: 2 of the agent's spans began other traces (4bf92f3577b34da6a3ce929d0e0e4736)" },
    ]);
    const otherTrace = { ...call.log!, traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' };
    expect(checkCall({ ...scenario, expect: { one_trace: true } }, otherTrace).failures).toEqual([
      { message: `one_trace: the call ran under trace ${call.log!.summary.traceId}, not the carrier's 0af7651916cd43dd8448eb211c80319c` },
    ]);
  });
});

describe('barge-in, conditions and determinism', () => {
  const bargeIn: ScenarioSpec = {
    name: 'barges in on the greeting',
    agent: 'receptionist',
    line: 'wideband',
    conditions: { noise_db: 30, loss: 0.02, jitter_ms: 40 },
    steps: [{ say: 'when are you open', interrupt_after_ms: 700, expect: { interrupted: true, says: 'noon' } }],
  };

  it('interrupted: the caller speaks over the agent and it stops; the same seed gives the same verdict and timings', async () => {
    const first = await runner.run(defineScenario(bargeIn), { seed: 5 });
    const again = await runner.run(defineScenario(bargeIn), { seed: 5 });
    expect(first.failures).toEqual([]);
    expect(first.log!.sampleRate).toBe(16000);
    const outline = (result: ScenarioResult) => ({
      failures: result.failures,
      v2v: result.v2v,
      duration: result.durationMs,
      turns: result.log!.turns.map((turn) => [turn.startMs, turn.stopMs, turn.report?.agentText, turn.report?.interrupted]),
      spurts: result.log!.spurts,
    });
    expect(outline(again)).toEqual(outline(first));
    expect(Buffer.compare(Buffer.from(again.log!.callerTrack.buffer), Buffer.from(first.log!.callerTrack.buffer))).toBe(0);
    // Another seed: other noise, losses and delays on the line.
    const other = await runner.run(defineScenario(bargeIn), { seed: 6 });
    expect(Buffer.compare(Buffer.from(other.log!.callerTrack.buffer), Buffer.from(first.log!.callerTrack.buffer))).not.toBe(0);
  }, 120_000);

  it('interrupted fails when the agent finished the turn the caller spoke into (on the browser line)', async () => {
    const late = await runner.run(
      defineScenario({ ...bargeIn, name: 'speaks after the greeting', line: 'browser', conditions: {}, steps: [{ say: 'when are you open', expect: { interrupted: true, says: 'noon' } }] }),
    );
    expect(late.failures).toEqual([{ step: 1, message: 'interrupted: the caller did not speak over an agent turn' }]);
    expect(late.log!.sampleRate).toBe(16000);
    expect(late.log!.sentMessages['audio']).toBeGreaterThan(100);
    expect(late.log!.sentMessages['media']).toBeUndefined();
  }, 120_000);
});

describe('an agent handed over in code', () => {
  it('runs a Dialogue object instead of a named agent', async () => {
    const scenario = defineScenario({ name: 'echoes', steps: [{ say: 'good morning', expect: { says: 'you said' } }] });
    const result = await runner.run(scenario, { dialogue: () => new EchoDialogue({ greeting: 'Echo here.' }) });
    expect(result.failures).toEqual([]);
    expect(result.log!.turns[0]!.report!.agentText).toBe('Echo here.');
  }, 120_000);
});

describe('an llm: agent and a judge', () => {
  const llm = new FakeOpenAiServer();
  const judgeServer = new FakeOpenAiServer();
  beforeAll(async () => {
    await llm.start();
    await judgeServer.start();
  });
  afterAll(async () => {
    await llm.close();
    await judgeServer.close();
  });

  it('runs the model behind llm:, checks its tool calls and ending, and sends judge: criteria to --judge-url', async () => {
    llm.handlers.push(
      callsTools(
        [
          { id: 'call_1', name: 'book_table', arguments: { party_size: 2, day: 'friday' } },
          { id: 'call_2', name: 'end_call', arguments: { reason: 'booked' } },
        ],
        'Booked for two on Friday. Goodbye!',
      ),
    );
    judgeServer.handlers.push(says('{"pass": false, "reason": "it never asked for a name"}'), says('PASS'));
    const scenario = defineScenario({
      name: 'books with the model',
      llm: { url: llm.baseUrl, model: 'fake-model' },
      steps: [
        { expect: { says: 'how can i help' } },
        {
          say: 'a table for two on friday please',
          expect: { says: 'booked for two', tool: { name: 'book_table', args: { party_size: 2 } }, action: 'end_call', judge: 'the agent takes the caller\'s name' },
        },
      ],
      expect: { ends_with: 'end_call', judge: 'the call is short' },
    });
    const result = await runner.run(scenario, { judge: { url: judgeServer.baseUrl, model: 'judge-model' } });
    expect(result.failures).toEqual([{ step: 2, message: `judge "the agent takes the caller's name": it never asked for a name` }]);
    expect(result.skipped).toEqual([]);
    expect(llm.seen[0]!.body.model).toBe('fake-model');
    expect(judgeServer.seen.map((request) => request.body.model)).toEqual(['judge-model', 'judge-model']);
    const asked = JSON.stringify(judgeServer.seen[0]!.body.messages);
    expect(asked).toContain("Criterion: the agent takes the caller's name");
    expect(asked).toContain('Booked for two on Friday. Goodbye!');
  }, 120_000);
});

describe('a call that throws', () => {
  it('comes back as an error result, the call hung up and its engines released, and the runner goes on', async () => {
    const real = stack.agentFor(new EchoDialogue({ greeting: 'Echo here.' }));
    let session: CallSession | undefined;
    let settles = 0;
    // An agent whose call breaks a second into the call: the driver's wait for it to settle throws.
    const breaking = {
      handle: (transport: Transport, overrides: Parameters<VoiceAgent['handle']>[1]) => {
        session = real.handle(transport, overrides);
        return new Proxy(session, {
          get: (target, key) =>
            key === 'settled'
              ? async () => {
                  if (++settles > 50) throw new Error('the agent broke');
                  await target.settled();
                }
              : Reflect.get(target, key, target),
        });
      },
    } as unknown as VoiceAgent;
    const scenario = defineScenario({ name: 'breaks', steps: [{ say: 'good morning', expect: { says: 'you said' } }] });
    const result = await runner.run(scenario, { agent: breaking });
    expect(result).toMatchObject({ name: 'breaks', passed: false, failures: [], error: 'the agent broke' });
    expect(session!.isEnded).toBe(true);
    expect((await session!.summary).reason).toBe('the scenario runner stopped the call');
    const after = await runner.run(scenario, { dialogue: () => new EchoDialogue({ greeting: 'Echo here.' }) });
    expect(after.failures).toEqual([]);
  }, 120_000);
});
