import { percentile } from '../agent/index.js';
import { numbersAsDigits } from './number-text.js';
import { parseTraceparent } from '../tracing/index.js';
import { turnMs, type AgentTurn, type CallLog, type StepWindow } from './call-log.js';
import type { Scenario } from './scenario.js';
import type { CallExpectation, StepExpectation } from './schema.js';

/** A check that did not hold: the step it belongs to (counting from 1; absent: the whole call) and what went wrong. */
export interface Failure {
  step?: number;
  message: string;
}

/** A `judge:` criterion to put to the LLM: on a step's reply, or on the whole call. */
export interface JudgeQuestion {
  step?: number;
  criterion: string;
  /** The text it is judged on (the reply, or the transcript). */
  text: string;
}

export interface CheckOutcome {
  failures: Failure[];
  judge: JudgeQuestion[];
  /** Voice-to-voice of every step that had a caller's voice and a reply, ms. */
  v2v: Array<{ step: number; ms: number }>;
}

/**
 * A pattern of the scenario file: `/regex/flags` (tried on the text as written and with its numbers as digits),
 * else a case-insensitive substring with numbers read as digits on both sides ("four one nine two" is "4192").
 */
export function matches(pattern: string, text: string): boolean {
  const regex = /^\/(.*)\/([a-z]*)$/s.exec(pattern);
  if (regex) {
    const compiled = new RegExp(regex[1]!, regex[2]);
    return compiled.test(text) || compiled.test(numbersAsDigits(text));
  }
  return numbersAsDigits(text).includes(numbersAsDigits(pattern));
}

function normalise(text: string): string {
  return text.toLowerCase().replace(/\s+/g, ' ').trim();
}

/** The agent turns that began in a step's window (from the caller's action, or the window's start). */
export function replyTurns(log: CallLog, window: StepWindow): AgentTurn[] {
  const from = window.actionStartMs ?? window.startMs;
  return log.turns.filter((turn) => turnMs(turn) >= from && turnMs(turn) < window.endMs);
}

/** The reply's voice-to-voice: the caller's last voice sample to the first agent sample heard after it. */
export function voiceToVoiceMs(log: CallLog, window: StepWindow): number | undefined {
  if (window.voiceEndMs === undefined) return undefined;
  const spurt = log.spurts.find((candidate) => candidate.startMs >= window.voiceEndMs! && candidate.startMs < window.endMs);
  return spurt ? spurt.startMs - window.voiceEndMs : undefined;
}

/** The event at `atMs` belongs to the window (the last window also holds what happened as the call ended). */
function inWindow(atMs: number, window: StepWindow, log: CallLog): boolean {
  return atMs >= window.startMs && (atMs < window.endMs || (window === log.windows.at(-1) && atMs <= window.endMs));
}

const list = (patterns: string | string[]) => (Array.isArray(patterns) ? patterns : [patterns]);

/** Checks every expectation of a scenario against its call's log. */
export function checkCall(scenario: Scenario, log: CallLog): CheckOutcome {
  const outcome: CheckOutcome = { failures: [], judge: [], v2v: [] };
  scenario.steps.forEach((step, index) => {
    const window = log.windows[index];
    const number = index + 1;
    const fail = (message: string) => outcome.failures.push({ step: number, message });
    if (!window) {
      if (step.expect || step.say || step.play || step.dtmf) fail(`the call ended (${log.summary.reason}) before this step`);
      return;
    }
    if (window.problem) fail(window.problem);
    const v2v = voiceToVoiceMs(log, window);
    if (v2v !== undefined) outcome.v2v.push({ step: number, ms: v2v });
    if (step.expect) checkStep(step.expect, log, window, v2v, fail, (criterion, text) => outcome.judge.push({ step: number, criterion, text }));
  });
  for (const turn of log.conversation?.turns ?? []) {
    const v2v = turn.window && voiceToVoiceMs(log, turn.window);
    if (v2v !== undefined) outcome.v2v.push({ step: 0, ms: v2v });
  }
  checkWhole(scenario.expect, log, outcome);
  return outcome;
}

function checkStep(
  expect: StepExpectation,
  log: CallLog,
  window: StepWindow,
  v2v: number | undefined,
  fail: (message: string) => void,
  judge: (criterion: string, text: string) => void,
): void {
  const turns = replyTurns(log, window);
  const said = turns.map((turn) => turn.report?.agentText ?? '').filter(Boolean).join(' ');
  const replied = turns.length > 0;
  const noReply = `no reply from the agent within ${windowMs(window)} ms`;
  if (expect.says !== undefined) {
    for (const pattern of list(expect.says)) {
      if (!replied) fail(`says ${pattern}: ${noReply}`);
      else if (!matches(pattern, said)) fail(`says ${pattern}: the agent said "${said}"`);
    }
  }
  for (const pattern of expect.not_says === undefined ? [] : list(expect.not_says)) {
    if (matches(pattern, said)) fail(`not_says ${pattern}: the agent said "${said}"`);
  }
  if (expect.within_ms !== undefined) {
    if (v2v === undefined) fail(`within_ms ${expect.within_ms}: ${window.voiceEndMs === undefined ? 'the step has no caller voice to time from' : noReply}`);
    else if (v2v > expect.within_ms) fail(`within_ms ${expect.within_ms}: the agent answered after ${Math.round(v2v)} ms`);
  }
  const tools = log.events.flatMap(({ atMs, event }) => (event.type === 'tool-call' && event.kept && inWindow(atMs, window, log) ? [event] : []));
  if (expect.tool) {
    const { name, args, times } = expect.tool;
    const named = tools.filter((call) => call.name === name);
    const matching = named.filter((call) => !args || isSubset(args, call.arguments));
    if (named.length === 0) fail(`tool ${name}: ${tools.length ? `the agent called ${tools.map((call) => call.name).join(', ')}` : 'no tool was called'}`);
    else if (matching.length === 0)
      fail(`tool ${name} with ${JSON.stringify(args)}: called with ${named.map((call) => JSON.stringify(call.arguments)).join(', ')}`);
    else if (times !== undefined && matching.length !== times) fail(`tool ${name} times ${times}: the agent called it ${matching.length} times`);
  }
  if (expect.not_tool !== undefined && tools.some((call) => call.name === expect.not_tool)) fail(`not_tool ${expect.not_tool}: the agent called it`);
  if (expect.action !== undefined) checkAction(expect.action, log, window, fail);
  if (expect.heard !== undefined) {
    const heard = heardIn(log, window);
    if (!matches(expect.heard, heard)) fail(`heard ${expect.heard}: the agent heard ${heard ? `"${heard}"` : 'nothing'}`);
  }
  if (expect.no_reply_ms !== undefined) {
    const from = window.voiceEndMs ?? window.actionStartMs ?? window.startMs;
    const spoke = log.spurts.find((spurt) => spurt.startMs >= from && spurt.startMs < from + expect.no_reply_ms!);
    if (spoke) fail(`no_reply_ms ${expect.no_reply_ms}: the agent spoke after ${Math.round(spoke.startMs - from)} ms`);
  }
  if (expect.interrupted) checkInterrupted(log, window, fail);
  if (expect.judge !== undefined) judge(expect.judge, said);
}

/** The agent turn the caller spoke into stopped; a turn that had ended before the caller spoke was not barged in on. */
function checkInterrupted(log: CallLog, window: StepWindow, fail: (message: string) => void): void {
  const barged = window.bargedTurn;
  const turn = barged && log.turns.find((candidate) => candidate.turn === barged.turn && candidate.startMs === barged.startMs);
  if (!turn || turn.startMs === undefined) return fail('interrupted: the caller did not speak over an agent turn');
  if (turn.report?.interrupted) return;
  const said = turn.report?.agentText ?? '';
  const spokeAt = window.actionStartMs ?? window.startMs;
  const endedAt = heardEndMs(log, turn);
  if (endedAt <= spokeAt)
    return fail(`interrupted: the caller started ${Math.round(spokeAt - endedAt)} ms after the agent's turn ("${said}") ended: there was nothing to barge in on`);
  fail(`interrupted: the agent went on with its turn ("${said}") to the end, ${Math.round(endedAt - spokeAt)} ms over the caller`);
}

/** When the caller heard the last of an agent turn: the end of the last audio spurt that began within it. */
function heardEndMs(log: CallLog, turn: AgentTurn): number {
  const until = turn.stopMs ?? log.endMs;
  const spurts = log.spurts.filter((spurt) => spurt.startMs >= turn.startMs! && spurt.startMs <= until);
  return Math.max(until, ...spurts.map((spurt) => spurt.endMs));
}

function windowMs(window: StepWindow): number {
  return Math.round(window.endMs - (window.voiceEndMs ?? window.actionStartMs ?? window.startMs));
}

function checkAction(action: NonNullable<StepExpectation['action']>, log: CallLog, window: StepWindow, fail: (message: string) => void): void {
  const wanted = typeof action === 'string' ? action : action.type;
  const endedHere = log.endedBy === 'agent' && log.endMs >= window.startMs && (log.endMs <= window.endMs || window === log.windows.at(-1));
  const transfer = log.events.findLast(({ atMs, event }) => event.type === 'tool-call' && event.kept && event.name === 'transfer_call' && atMs <= log.endMs);
  const label = typeof action === 'string' ? action : `transfer to ${action.to}`;
  if (!endedHere) return fail(`action ${label}: ${log.endedBy === 'agent' ? `the agent ended the call elsewhere (${log.summary.reason})` : 'the agent did not end the call'}`);
  if (wanted === 'end_call' && transfer) return fail('action end_call: the agent transferred the call');
  if (wanted === 'transfer') {
    if (!transfer || transfer.event.type !== 'tool-call') return fail('action transfer: the agent hung up without a transfer');
    const to = typeof action === 'object' ? action.to : undefined;
    const target = String(transfer.event.arguments['to'] ?? '');
    if (to !== undefined && !matches(to, target)) fail(`action transfer to ${to}: transferred to "${target}"`);
  }
}

/** What the agent's recogniser heard in a window: its final transcripts and keypad entries. */
export function heardIn(log: CallLog, window: StepWindow): string {
  return log.events
    .flatMap(({ atMs, event }) => {
      if (!inWindow(atMs, window, log)) return [];
      if (event.type === 'transcript' && event.final) return [event.text];
      if (event.type === 'keypad-entry') return [event.digits];
      return [];
    })
    .join(' ')
    .trim();
}

function checkWhole(expect: CallExpectation, log: CallLog, outcome: CheckOutcome): void {
  const fail = (message: string) => outcome.failures.push({ message });
  const { says, not_says, tool, not_tool, action } = expect;
  const whole: StepWindow = { step: -1, startMs: 0, endMs: log.endMs + 1 };
  const agentDoes = { says, not_says, tool, not_tool, action };
  if (Object.values(agentDoes).some((value) => value !== undefined)) checkStep(agentDoes, log, whole, undefined, fail, () => undefined);
  if (expect.goal !== undefined) {
    const ending = log.conversation?.ending;
    const wanted = expect.goal === 'reached' ? 'goal_reached' : 'goal_failed';
    if (!log.conversation) fail(`goal ${expect.goal}: the scenario has no simulated caller`);
    else if (ending !== wanted) fail(`goal ${expect.goal}: the caller's conversation ended with ${ending}${log.conversation.reason ? ` (${log.conversation.reason})` : ''}`);
  }
  const turns = log.turns.filter((turn) => turn.report).length;
  if (typeof expect.turns === 'number' && turns !== expect.turns) fail(`turns ${expect.turns}: the call had ${turns}`);
  if (typeof expect.turns === 'object') {
    const { min, max } = expect.turns;
    if ((min !== undefined && turns < min) || (max !== undefined && turns > max)) fail(`turns ${min ?? 0}..${max ?? '∞'}: the call had ${turns}`);
  }
  if (expect.ends_with !== undefined) {
    const transferred = log.events.some(({ event }) => event.type === 'tool-call' && event.kept && event.name === 'transfer_call');
    const ending = log.endedBy === 'caller' ? 'caller_hangup' : transferred ? 'transfer' : 'end_call';
    if (ending !== expect.ends_with) fail(`ends_with ${expect.ends_with}: the call ended with ${ending} (${log.summary.reason})`);
  }
  if (expect.max_v2v_p95_ms !== undefined) {
    const p95 = percentile(outcome.v2v.map((entry) => entry.ms), 95);
    if (p95 === undefined) fail(`max_v2v_p95_ms ${expect.max_v2v_p95_ms}: no reply was timed`);
    else if (p95 > expect.max_v2v_p95_ms) fail(`max_v2v_p95_ms ${expect.max_v2v_p95_ms}: p95 was ${Math.round(p95)} ms`);
  }
  if (expect.one_trace) {
    const carried = parseTraceparent(log.traceparent)?.traceId;
    const strays = Object.entries(log.traces ?? {}).filter(([traceId]) => traceId !== carried);
    if (carried !== log.summary.traceId) fail(`one_trace: the call ran under trace ${log.summary.traceId}, not the carrier's ${carried}`);
    else if (strays.length > 0) fail(`one_trace: ${strays.reduce((sum, [, spans]) => sum + spans, 0)} of the agent's spans began other traces (${strays.map(([traceId]) => traceId).join(', ')})`);
  }
  if (expect.judge !== undefined) outcome.judge.push({ criterion: expect.judge, text: transcriptText(log) });
}

/** The call as plain dialogue lines, for the judge. */
export function transcriptText(log: CallLog): string {
  return log.turns
    .flatMap((turn) => [turn.report?.userText ? `Caller: ${turn.report.userText}` : '', turn.report?.agentText ? `Agent: ${turn.report.agentText}` : ''])
    .filter(Boolean)
    .join('\n');
}

/** `expected` is contained in `actual`: objects key by key, arrays and scalars equal (numbers and strings loosely). */
export function isSubset(expected: unknown, actual: unknown): boolean {
  if (expected !== null && typeof expected === 'object' && !Array.isArray(expected)) {
    if (actual === null || typeof actual !== 'object') return false;
    return Object.entries(expected).every(([key, value]) => isSubset(value, (actual as Record<string, unknown>)[key]));
  }
  if (Array.isArray(expected)) return Array.isArray(actual) && expected.length === actual.length && expected.every((value, index) => isSubset(value, actual[index]));
  if (typeof expected === 'string' && typeof actual === 'string') return normalise(expected) === normalise(actual);
  return String(expected) === String(actual);
}
