import { describe, expect, it } from 'vitest';
import { defineScenario, matches } from '../../src/testing/index.js';
import { checkCall } from '../../src/testing/checks.js';
import type { CallLog } from '../../src/testing/call-log.js';
import { concealment, LineConditions } from '../../src/testing/conditions.js';
import { numbersAsDigits } from '../../src/testing/number-text.js';

describe('text patterns', () => {
  it('read number words as digits on both sides', () => {
    expect(matches('4192', 'four one nine two')).toBe(true);
    expect(matches('four one nine two', 'Your code is 4192.')).toBe(true);
    expect(matches('4193', 'four one nine two')).toBe(false);
    expect(matches('/code is 4192/', 'code is four one nine two')).toBe(true);
    expect(matches('table for 7', 'A table for seven, tomorrow')).toBe(true);
    expect(numbersAsDigits('twenty one, two')).toBe('21, 2');
  });
});

/** A call where the agent spoke from 1 s to 3 s and the caller began speaking at `callerMs`. */
function bargeInCall(callerMs: number, interrupted: boolean): CallLog {
  const turn = { turn: 1, startMs: 1000, stopMs: interrupted ? callerMs + 300 : 3000, report: { turn: 1, interrupted, agentText: 'Welcome to Harbour Kitchen.' }, reportMs: 3000 };
  return {
    events: [],
    turns: [turn],
    windows: [{ step: 0, startMs: 0, actionStartMs: callerMs, voiceEndMs: callerMs + 800, bargedTurn: turn, endMs: callerMs + 3000 }],
    spurts: [{ startMs: 1000, endMs: turn.stopMs + 20 }],
    summary: { reason: 'hangup' },
    endedBy: 'caller',
    endMs: callerMs + 3000,
  } as unknown as CallLog;
}

describe('interrupted:', () => {
  const scenario = defineScenario({ name: 'barge', agent: 'receptionist', steps: [{ say: 'hello', interrupt_after_ms: 500, expect: { interrupted: true } }] });

  it('says the caller started after the turn had ended, not that the agent talked over the caller', () => {
    expect(checkCall(scenario, bargeInCall(8000, false)).failures).toEqual([
      { step: 1, message: 'interrupted: the caller started 4980 ms after the agent\'s turn ("Welcome to Harbour Kitchen.") ended: there was nothing to barge in on' },
    ]);
  });

  it('says the agent went on over the caller only when their speech overlapped', () => {
    expect(checkCall(scenario, bargeInCall(1500, false)).failures).toEqual([
      { step: 1, message: 'interrupted: the agent went on with its turn ("Welcome to Harbour Kitchen.") to the end, 1520 ms over the caller' },
    ]);
    expect(checkCall(scenario, bargeInCall(1500, true)).failures).toEqual([]);
  });
});

describe('a lossy line', () => {
  const frame = (index: number) => Int16Array.from({ length: 160 }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 200 * (index * 160 + i)) / 8000)));

  it('conceals a lost frame with the last pitch period, full for 10 ms, fading to silence at 60 ms, as a receiver does', () => {
    const line = new LineConditions({ loss: 0.3 }, 5, 3000);
    const carried = Array.from({ length: 200 }, (_, index) => ({ sent: frame(index), out: line.carry(frame(index), index * 20, 20).samples }));
    const lost = carried.map((entry, index) => (entry.out.some((value, i) => value !== entry.sent[i]) ? index : -1)).filter((index) => index > 1);
    expect(lost.length).toBeGreaterThan(30);
    const energy = (samples: Int16Array) => samples.reduce((sum, value) => sum + value * value, 0);
    let checked = 0;
    for (const index of lost) {
      if (lost.includes(index - 1) || lost.includes(index - 2)) continue; // the first of a run, after two frames carried
      const out = carried[index]!.out;
      // A 200 Hz tone at 8 kHz: a 40-sample period, repeated without a seam for the first 10 ms.
      const held = (concealment.holdMs * 160) / 20;
      for (let i = 40; i < held; i++) expect(Math.abs(out[i]! - out[i - 40]!)).toBeLessThanOrEqual(1);
      expect(energy(out.subarray(0, held))).toBeGreaterThan(0.9 * energy(carried[index - 1]!.out.subarray(0, held)));
      expect(Math.abs(out[159]!)).toBeLessThanOrEqual(0.61 * 8000);
      checked++;
      if (lost.includes(index + 1) && lost.includes(index + 2)) {
        expect(energy(carried[index + 2]!.out)).toBeLessThan(energy(out) / 4);
        if (lost.includes(index + 3)) expect(carried[index + 3]!.out.every((value) => value === 0)).toBe(true);
      }
    }
    expect(checked).toBeGreaterThan(5);
  });
});
