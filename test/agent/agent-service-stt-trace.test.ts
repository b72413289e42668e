import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SegmentServiceSpeechToText, VoiceAgent, type TranscribeWav } from '../../src/agent/index.js';
import { VirtualClock } from '../../src/pipeline/index.js';
import { FileTransport } from '../../src/transports/file/file-transport.js';
import { callerTrack, EnergyVad, FixedDialogue, ToneTts } from '../support/agent-doubles.js';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';

/** A `/v1/asr` double: records the traceparent of every request and answers by the audio's length. */
function recordingService() {
  const requests: { traceparent: string | undefined; bytes: number }[] = [];
  const transcribe: TranscribeWav = async (wav, _signal, traceparent) => {
    requests.push({ traceparent, bytes: wav.length });
    return { text: 'hello there', words: [] };
  };
  return { requests, transcribe };
}

async function call(interimEveryMs: number) {
  const service = recordingService();
  const clock = new VirtualClock();
  const agent = new VoiceAgent({
    dialogue: new FixedDialogue('fine.'),
    stt: new SegmentServiceSpeechToText(service.transcribe, { interimEveryMs }),
    tts: new ToneTts(),
    vad: () => new EnergyVad(),
    mode: interimEveryMs > 0 ? 'low-latency' : 'balanced',
    clock,
    greet: false,
  });
  const transport = new FileTransport(callerTrack(3000, [{ atMs: 500, ms: 900, amplitude: 5000 }]), clock, {
    maxTailMs: 4000,
    traceContext: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
  });
  const session = agent.handle(transport);
  transport.settle = () => session.settled();
  const summary = await session.summary;
  return { summary, requests: service.requests };
}

describe('agent -> speech service /v1/asr hop (service recognition, as `shoal talk` uses for 8 kHz callers)', () => {
  beforeAll(() => trace.setGlobalTracerProvider(provider));
  afterAll(async () => {
    await provider.shutdown();
    trace.disable();
  });

  it('every recognition request, interims included, carries the call trace with the turn\'s asr span as parent', async () => {
    exporter.reset();
    const { summary, requests } = await call(300);
    expect(summary.traceId).toBe(traceId);
    expect(summary.turns[0]?.userText).toBe('hello there');
    // 900 ms of speech gives interims every 300 ms of audio plus the final request.
    expect(requests.length).toBeGreaterThanOrEqual(3);
    const asrSpans = exporter.getFinishedSpans().filter((s) => s.name === 'asr');
    expect(asrSpans).toHaveLength(1);
    const asrSpanId = asrSpans[0]!.spanContext().spanId;
    for (const request of requests) expect(request.traceparent).toBe(`00-${traceId}-${asrSpanId}-01`);
  });

  it('without an OpenTelemetry SDK the requests still carry the call\'s trace id', async () => {
    trace.disable();
    try {
      const { requests } = await call(0);
      expect(requests).toHaveLength(1);
      expect(requests[0]!.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    } finally {
      trace.setGlobalTracerProvider(provider);
    }
  });
});
