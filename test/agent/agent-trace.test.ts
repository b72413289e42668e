import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDialogue } from '../../agents/index.js';
import { createEmbeddedAgentStack, type EmbeddedAgentStack } from '../../src/agent/index.js';
import { decodeCall, runFileCall } from '../../src/transports/file/file-call.js';
import { spanAttributePattern, spanAttributes } from '../../src/tracing/index.js';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

/**
 * The support fixture call's first caller turn ("what is my account balance", 1.0-2.8 s) and the quiet after it,
 * through `stack`'s agent with the transport carrying `traceparent`: one answered turn has every span of a call.
 */
async function tracedCall(stack: EmbeddedAgentStack, traceparent: string) {
  exporter.reset();
  const call = await decodeCall(readFileSync(new URL('../fixtures/calls/support-16k.wav', import.meta.url)));
  const caller = { samples: call.samples.subarray(0, 5 * call.sampleRate), sampleRate: call.sampleRate };
  const { summary } = await runFileCall(stack.agentFor(createDialogue('support')), caller, { fast: true, transport: { traceContext: { traceparent } } });
  // Service spans end when their socket closes; give the last ones a moment.
  await new Promise((resolve) => setTimeout(resolve, 300));
  return summary;
}

describe('one trace per call', () => {
  let stack: EmbeddedAgentStack;
  let serviceAsrStack: EmbeddedAgentStack;
  beforeAll(async () => {
    trace.setGlobalTracerProvider(provider);
    stack = await createEmbeddedAgentStack({ mode: 'low-latency' });
    serviceAsrStack = await createEmbeddedAgentStack({ mode: 'balanced', stt: 'service' });
  }, 120_000);
  afterAll(async () => {
    await serviceAsrStack?.close();
    await stack?.close();
    await provider.shutdown();
    trace.disable();
  });

  it('warming the stack up records no span (no orphan trace before the first call)', () => {
    expect(exporter.getFinishedSpans().map((s) => s.name)).toEqual([]);
  });

  it('every span of a call, the speech service\'s included, shares the trace id the transport carried', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const summary = await tracedCall(stack, `00-${traceId}-00f067aa0ba902b7-01`);
    expect(summary.traceId).toBe(traceId);
    expect(summary.turns.filter((t) => t.userText).map((t) => t.userText)).toEqual(['what is my account balance']);
    const spans = exporter.getFinishedSpans();
    const names = new Set(spans.map((s) => s.name));
    for (const name of ['call', 'turn', 'asr', 'dialogue', 'tts']) expect(names).toContain(name);
    expect(spans.filter((s) => s.name === 'call')).toHaveLength(1);
    const foreign = spans.filter((s) => s.spanContext().traceId !== traceId);
    expect(foreign.map((s) => s.name)).toEqual([]);
    const service = spans.filter((s) => s.instrumentationScope.name === 'shoal.service');
    expect(service.map((s) => s.name)).toContain('tts.live');
    // The hierarchy: turn under call, asr/dialogue/tts under a turn.
    const call = spans.find((s) => s.name === 'call')!;
    const turns = spans.filter((s) => s.name === 'turn');
    for (const turn of turns) expect(turn.parentSpanContext?.spanId).toBe(call.spanContext().spanId);
    const turnIds = new Set(turns.map((t) => t.spanContext().spanId));
    for (const child of spans.filter((s) => ['asr', 'dialogue', 'tts'].includes(s.name))) {
      expect(turnIds.has(child.parentSpanContext!.spanId)).toBe(true);
    }
    // Turn metrics are span attributes.
    const measured = turns.find((t) => typeof t.attributes[spanAttributes.turnVoiceToVoiceMs] === 'number');
    expect(measured).toBeDefined();
    expect(call.attributes[spanAttributes.callTurns]).toBe(summary.turns.length);
    const dialogue = spans.filter((s) => s.name === 'dialogue');
    expect(dialogue.some((s) => typeof s.attributes[spanAttributes.dialogueFirstTokenMs] === 'number')).toBe(true);
    // One naming style for every attribute Shoal sets.
    const semanticConventions = /^(http|url|server|client|network|error|exception|user_agent)\./;
    const attributeNames = [...new Set(spans.flatMap((s) => Object.keys(s.attributes)))].filter((key) => !semanticConventions.test(key));
    expect(attributeNames.filter((key) => !spanAttributePattern.test(key))).toEqual([]);
    expect(attributeNames.length).toBeGreaterThan(8);
  }, 180_000);

  it('with service recognition (`/v1/asr` per utterance), the service\'s asr spans join the call trace under the agent\'s asr span', async () => {
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const summary = await tracedCall(serviceAsrStack, `00-${traceId}-b7ad6b7169203331-01`);
    expect(summary.traceId).toBe(traceId);
    const spans = exporter.getFinishedSpans();
    const serviceAsr = spans.filter((s) => s.instrumentationScope.name === 'shoal.service' && s.name === 'asr');
    expect(summary.turns.filter((t) => t.userText)).toHaveLength(1);
    expect(serviceAsr.length).toBeGreaterThanOrEqual(1);
    expect(spans.filter((s) => s.spanContext().traceId !== traceId).map((s) => s.name)).toEqual([]);
    const agentAsrIds = new Set(spans.filter((s) => s.name === 'asr' && s.instrumentationScope.name !== 'shoal.service').map((s) => s.spanContext().spanId));
    for (const span of serviceAsr) expect(agentAsrIds.has(span.parentSpanContext!.spanId)).toBe(true);
  }, 180_000);
});
