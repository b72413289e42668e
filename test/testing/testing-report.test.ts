import { describe, expect, it } from 'vitest';
import { htmlReport, junitXml, suiteReport, type CallLog, type ScenarioResult } from '../../src/testing/index.js';
import { callStats } from '../../src/testing/call-stats.js';
import { verdictOf } from '../../src/testing/judge.js';

/** A short call: the caller speaks 1.0-2.0 s; the agent speaks at 0.2 s, 1.5 s (over the caller) and 2.6 s; its second turn barged in on. */
function callLog(): CallLog {
  const report = (turn: number, agentText: string, interrupted = false) => ({ turn, agentText, userText: turn > 1 ? 'hello' : '', interrupted, metrics: {} });
  return {
    events: [
      { atMs: 2500, event: { type: 'tool-call', name: 'book_table', arguments: {}, kept: true } },
      { atMs: 2550, event: { type: 'tool-call', name: 'lookup', arguments: {}, kept: false } },
    ],
    turns: [
      { turn: 1, startMs: 200, stopMs: 900, report: report(1, 'Hello.'), reportMs: 900 },
      { turn: 2, startMs: 1500, stopMs: 1700, report: report(2, 'Sorry—', true), reportMs: 1700 },
      { turn: 3, startMs: 2600, stopMs: 3200, report: report(3, 'Booked.'), reportMs: 3200 },
    ],
    windows: [{ step: 0, startMs: 0, actionStartMs: 1000, voiceEndMs: 2000, endMs: 3500, action: 'said "hello"' }],
    spurts: [
      { startMs: 200, endMs: 900 },
      { startMs: 1500, endMs: 1700 },
      { startMs: 2600, endMs: 3200 },
    ],
    summary: { reason: 'caller hung up' },
    endedBy: 'caller',
    endMs: 3500,
    traceparent: '',
    sampleRate: 8000,
    callerTrack: new Int16Array(28_000),
    agentTrack: new Int16Array(28_000),
    sentMessages: {},
  } as unknown as CallLog;
}

function result(name: string, seed: number, passed: boolean, v2v: number[], extra: Partial<ScenarioResult> = {}): ScenarioResult {
  const log = callLog();
  return {
    name,
    file: '/suites/booking.yaml',
    passed,
    failures: passed ? [] : [{ step: 1, message: 'says /booked/: the agent said "Sorry"' }],
    turns: 3,
    durationMs: 3500,
    wallMs: 500,
    speedup: 7,
    seed,
    v2v: v2v.map((ms) => ({ step: 1, ms })),
    skipped: [],
    judged: [],
    stats: callStats(log),
    log,
    ...extra,
  };
}

describe('a call\'s figures', () => {
  it('count barge-ins on the agent, the agent starting over the caller, and kept tool calls', () => {
    expect(callStats(callLog())).toEqual({ bargedIn: 1, talkedOver: 1, toolCalls: ['book_table'] });
  });
});

describe('the suite report', () => {
  const results = [
    result('books', 1, true, [600, 700], { judged: [{ criterion: 'polite', verdict: 'maybe', reason: 'it is hard to tell' }] }),
    result('books', 2, false, [900]),
    result('books', 3, true, [650]),
    result('hours', 1, false, [], { error: 'the agent broke', failures: [], turns: 0, stats: { bargedIn: 0, talkedOver: 0, toolCalls: [] } }),
  ];

  it('gives each scenario its pass rate, turns, voice-to-voice p50/p95, barge-ins, talk-overs, tools and failing runs; the suite rolled up', () => {
    const report = suiteReport(results);
    expect(report.scenarios.map((scenario) => scenario.name)).toEqual(['books', 'hours']);
    expect(report.scenarios[0]).toMatchObject({
      runs: 3,
      passed: 2,
      errors: 0,
      passRate: 2 / 3,
      turns: { min: 3, max: 3, mean: 3 },
      v2vMs: { p50: 650, p95: 900, count: 4 },
      bargedIn: 3,
      talkedOver: 3,
      toolCalls: { book_table: 3 },
      judged: { pass: 0, fail: 0, maybe: 1, skipped: 0 },
      failing: [{ seed: 2, failures: [{ step: 1, message: 'says /booked/: the agent said "Sorry"' }] }],
    });
    expect(report.scenarios[1]).toMatchObject({ runs: 1, passed: 0, errors: 1, failing: [{ seed: 1, failures: [], error: 'the agent broke' }] });
    expect(report.suite).toMatchObject({ scenarios: 2, runs: 4, passed: 2, errors: 1, passRate: 0.5, v2vMs: { p50: 650, p95: 900 }, toolCalls: { book_table: 3 } });
  });

  it('counts a run that threw as an error in JUnit, a failed check as a failure', () => {
    const xml = junitXml(results);
    expect(xml).toContain('<testsuites name="shoal test" tests="4" failures="1" errors="1">');
    expect(xml).toMatch(/<testsuite name="\/suites\/booking.yaml" tests="4" failures="1" errors="1" skipped="0" time="2.000">\n {4}<properties><property name="pass_rate" value="0.500"\/><property name="v2v_p50_ms" value="650"\/><property name="v2v_p95_ms" value="900"\/>/);
    expect(xml).toContain('<error message="the agent broke" type="ScenarioError"/>');
    expect(xml.match(/<failure /g)).toHaveLength(1);
    expect(xml).toContain('<property name="judge_maybe" value="1"/>');
  });

  it('writes one self-contained HTML page with each failing call\'s transcript and audio', () => {
    const page = htmlReport(results);
    expect(page).toMatch(/^<!doctype html>/);
    expect(page).not.toMatch(/<(script|link|img)\b/);
    expect(page.match(/<section>/g)).toHaveLength(2);
    expect(page).toContain('step 1: says /booked/: the agent said &quot;Sorry&quot;');
    expect(page).toContain('error: the agent broke');
    expect(page).toContain('agent  &quot;Booked.&quot;');
    const audio = /src="data:audio\/wav;base64,([^"]+)"/.exec(page)![1]!;
    const wav = Buffer.from(audio, 'base64');
    expect(wav.subarray(0, 4).toString()).toBe('RIFF');
    expect(wav.readUInt16LE(22)).toBe(2);
    expect(wav.length).toBe(44 + 28_000 * 4);
    expect(page).toContain('2/3 passed (67 %), v2v p50 650 ms p95 900 ms');
  });
});

describe('judge verdicts', () => {
  it('are pass, fail or maybe, with the reason', () => {
    expect(verdictOf('{"verdict": "maybe", "reason": "the transcript does not say"}')).toEqual({ verdict: 'maybe', reason: 'the transcript does not say' });
    expect(verdictOf('{"pass": false, "reason": "rude"}')).toEqual({ verdict: 'fail', reason: 'rude' });
    expect(verdictOf('PASS')).toEqual({ verdict: 'pass', reason: 'PASS' });
    expect(verdictOf('no idea')).toMatchObject({ verdict: 'fail' });
  });
});
