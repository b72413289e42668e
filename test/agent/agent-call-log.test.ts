import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging/index.js';
import { virtualCall } from '../support/agent-virtual-call.js';

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
  const { summary, session } = await virtualCall({ logger });
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
