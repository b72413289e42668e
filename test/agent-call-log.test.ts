import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { VoiceAgent } from '../src/agent/index.js';
import { createLogger } from '../src/logging/index.js';
import { VirtualClock } from '../src/pipeline/index.js';
import { FileTransport } from '../src/transports/file/file-transport.js';
import { AmplitudeStt, callerTrack, EnergyVad, FixedDialogue, ToneTts } from './agent-doubles.js';

/** A logger writing JSON lines into an array. */
function capturedLogger(level: 'info' | 'warn' = 'info') {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: createLogger({ level, pretty: false, destination }) };
}

async function loggedCall(level: 'info' | 'warn' = 'info') {
  const { lines, logger } = capturedLogger(level);
  const clock = new VirtualClock();
  const agent = new VoiceAgent({
    dialogue: new FixedDialogue((input) => `you said ${input.userText}.`, 'Hi there.'),
    stt: new AmplitudeStt(),
    tts: new ToneTts(),
    vad: () => new EnergyVad(),
    mode: 'balanced',
    clock,
    logger,
  });
  const transport = new FileTransport(callerTrack(8000, [{ atMs: 500, ms: 600, amplitude: 5000 }, { atMs: 4000, ms: 700, amplitude: 8000 }]), clock, { maxTailMs: 60_000 });
  const session = agent.handle(transport);
  transport.settle = () => session.settled();
  const summary = await session.summary;
  return { lines, summary, traceId: session.traceId };
}

describe('call logs', () => {
  it('go through a child logger carrying the call id and trace id: start, one line per turn, one end', async () => {
    const { lines, summary, traceId } = await loggedCall();
    expect(new Set(lines.map((line) => line['traceId']))).toEqual(new Set([traceId]));
    const callIds = new Set(lines.map((line) => line['callId']));
    expect(callIds.size).toBe(1);
    expect([...callIds][0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(lines.filter((line) => line['msg'] === 'call started')).toHaveLength(1);
    expect(lines.filter((line) => line['msg'] === 'call ended')).toHaveLength(1);
    const turns = lines.filter((line) => typeof line['turn'] === 'number');
    expect(turns.map((line) => [line['userText'], line['agentText']])).toEqual(summary.turns.map((t) => [t.userText, t.agentText]));
    expect(turns.some((line) => typeof (line['metrics'] as Record<string, unknown>)['voiceToVoiceMs'] === 'number')).toBe(true);
    for (const line of lines) expect(line['level']).toBe(30);
  });

  it('follow the level: at warn a clean call logs nothing', async () => {
    const { lines } = await loggedCall('warn');
    expect(lines).toEqual([]);
  });
});
